import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRIVATE_KEY } from "../helpers/app-harness.js";
import { freePort } from "../helpers/free-port.js";
import { makeTempDir, type TempDir } from "../helpers/git-repos.js";
import {
  killProcess,
  type ServiceProcess,
  spawnApp,
  spawnCli,
} from "../helpers/service-process.js";

/**
 * Every reason the App (`npm start`, and `probot run` on its module), the
 * worker or the CLI will not start is one or two lines that name the thing
 * and the setting, exit 1, no stack trace (unless LOG_LEVEL=debug). Real
 * processes, as an operator starts them.
 */

let tmp: TempDir;
/** Placeholders in the cases below, and what they stand for. */
let places: Record<string, string>;
beforeAll(async () => {
  tmp = makeTempDir("pw-startup-");
  const file = join(tmp.path, "not-a-folder");
  writeFileSync(file, "a file where a folder should be\n");
  const repo = join(tmp.path, "repo.git");
  execFileSync("git", ["init", "--quiet", "--bare", repo]);
  places = {
    FILE: file,
    // Nothing listens there: taken, then released.
    PORT: String(await freePort()),
    CACHE: join(tmp.path, "cache"),
    REPO: repo,
  };
});
afterAll(() => tmp.remove());

/** The value with its placeholders (`<FILE>`) filled in. */
function fill(value: string): string {
  return value.replace(/<([A-Z_]+)>/g, (whole, name: string) => places[name] ?? whole);
}

const filled = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).map(([key, value]) => [key, fill(value)]));

const running: ServiceProcess[] = [];
afterAll(async () => {
  for (const p of running) await killProcess(p);
});

/** What a process printed and how it ended; a process still running after 60 s fails the test. */
async function outcome(p: ServiceProcess): Promise<{ code: number | string; output: string }> {
  running.push(p);
  const timeout = new Promise<"still running">((done) =>
    setTimeout(() => done("still running"), 60_000).unref(),
  );
  const code = await Promise.race([p.exited, timeout]);
  return { code, output: p.output().trim() };
}

function appEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(tmp.path, "home"),
    APP_ID: "1",
    PRIVATE_KEY,
    WEBHOOK_SECRET: "secret",
    PORT: "0",
    HOST: "127.0.0.1",
    PATCHWRIGHT_CACHE_DIR: places.CACHE ?? "",
    ...filled(extra),
  };
}

/** One or two lines, no stack frame, naming what is wrong and the setting. */
function expectRefusal(
  result: { code: number | string; output: string },
  mentions: Array<string | RegExp>,
) {
  expect(result.code, result.output).toBe(1);
  expect(result.output.split("\n").length, result.output).toBeLessThanOrEqual(2);
  expect(result.output).toMatch(/^patchwright cannot start: /);
  expect(result.output).not.toMatch(/^\s+at .+\(?.+:\d+:\d+\)?$/m);
  expect(result.output).not.toContain("node:internal");
  for (const mention of mentions) {
    expect(result.output).toMatch(typeof mention === "string" ? fill(mention) : mention);
  }
}

// The settings' own checks (a malformed value, PATCHWRIGHT_WORKER=off without
// Redis, the job store's folder, LOG_LEVEL=debug) are tested in-process
// (test/service/startup-refusal.test.ts); here, one process per entry.
describe("the App refuses to start in one line", () => {
  it.each<[string, Record<string, string>, Array<string | RegExp>]>([
    [
      "a file where the cache folder should be",
      { PATCHWRIGHT_CACHE_DIR: "<FILE>" },
      ["<FILE>", "is a file, not a folder", "PATCHWRIGHT_CACHE_DIR"],
    ],
    [
      // Probot connects to REDIS_URL too: checked before it starts, so none of its errors show.
      "a REDIS_URL where nothing answers",
      { REDIS_URL: "redis://127.0.0.1:<PORT>" },
      ["Redis at 127.0.0.1:<PORT>", "ECONNREFUSED", "REDIS_URL"],
    ],
  ])(
    "npm start: %s",
    async (_case, extra, mentions) => {
      expectRefusal(await outcome(spawnApp(appEnv(extra), tmp.path)), mentions);
    },
    90_000,
  );

  it("probot run on the App's module, without npm start's checks: the same one line", async () => {
    const result = await outcome(
      spawnApp(appEnv({ PATCHWRIGHT_CACHE_DIR: "<FILE>" }), tmp.path, { viaProbot: true }),
    );
    expectRefusal(result, ["<FILE>", "PATCHWRIGHT_CACHE_DIR"]);
  }, 90_000);
});

describe("patchwright worker and patchwright run refuse to start in one line", () => {
  const env = (extra: Record<string, string>) => ({
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(tmp.path, "home"),
    ...filled(extra),
  });

  it("worker: a REDIS_URL where nothing answers", async () => {
    const result = await outcome(
      spawnCli(
        ["worker"],
        env({ APP_ID: "1", PRIVATE_KEY, REDIS_URL: "redis://127.0.0.1:<PORT>" }),
        tmp.path,
      ),
    );
    expectRefusal(result, ["127.0.0.1:<PORT>", "REDIS_URL"]);
  }, 90_000);

  it("run: a file where the cache folder should be", async () => {
    const args = ["run", "--repo", "<REPO>", "--cache-dir", "<FILE>", "fix it"];
    const result = await outcome(
      spawnCli(
        args.map(fill),
        env({ ANTHROPIC_API_KEY: "sk-ant-test-0123456789abcdef" }),
        tmp.path,
      ),
    );
    expectRefusal(result, ["<FILE>", "is a file, not a folder", "--cache-dir"]);
  }, 90_000);
});
