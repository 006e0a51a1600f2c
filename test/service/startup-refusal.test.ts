import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkAppCanStart } from "../../src/app/start-checks.js";
import { parseServiceEnv } from "../../src/service/env.js";
import { openJobQueue } from "../../src/service/open-queue.js";
import {
  refusalText,
  requireWritableFolder,
  StartupRefusal,
} from "../../src/service/startup-refusal.js";
import { freePort } from "../helpers/free-port.js";
import { makeTempDir, type TempDir } from "../helpers/git-repos.js";

/**
 * The reasons a server process will not start, each one line that names
 * the thing and the setting. The processes themselves print these
 * (test/e2e/startup-refusals.test.ts); here, each reason in-process.
 */

let tmp: TempDir;
let file: string;
beforeEach(() => {
  tmp = makeTempDir("pw-refusal-");
  file = join(tmp.path, "not-a-folder");
  writeFileSync(file, "");
});
afterEach(() => tmp.remove());

const QUEUE = { maxAttempts: 3, jobLockMs: 30_000, redisUrl: undefined };

async function refusal(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StartupRefusal);
  const text = refusalText(error, { debug: false });
  expect(text.trimEnd().split("\n")).toHaveLength(1);
  return text;
}

describe("a folder the process must write", () => {
  it("is made when missing, and refused naming the file in the way and the setting", async () => {
    const fine = join(tmp.path, "a", "b");
    await requireWritableFolder(fine, "the cache folder", "Set X.");
    expect(existsSync(fine)).toBe(true);

    expect(await refusal(requireWritableFolder(file, "the cache folder", "Set X."))).toBe(
      `patchwright cannot start: the cache folder ${file} cannot be used: it is a file, not a folder. Set X.\n`,
    );
    expect(
      await refusal(requireWritableFolder(join(file, "cache"), "the cache folder", "Set X.")),
    ).toContain(`${file} is a file, not a folder`);
  });
});

describe("opening the job queue", () => {
  it("refuses a cache folder, or a job store folder, that is a file, naming PATCHWRIGHT_CACHE_DIR", async () => {
    const cache = await refusal(openJobQueue({ ...QUEUE, cacheDir: file }));
    expect(cache).toContain(`the cache folder ${file} cannot be used`);
    expect(cache).toContain("PATCHWRIGHT_CACHE_DIR");

    const cacheDir = join(tmp.path, "cache");
    mkdirSync(cacheDir);
    writeFileSync(join(cacheDir, "jobs"), "");
    const store = await refusal(openJobQueue({ ...QUEUE, cacheDir }));
    expect(store).toContain(`the job store ${join(cacheDir, "jobs")} cannot be used`);
    expect(store).toContain(`${join(cacheDir, "jobs")} is a file, not a folder`);
    expect(store).toContain("PATCHWRIGHT_CACHE_DIR");
  });

  it("refuses a Redis that does not answer, naming REDIS_URL (without its password)", async () => {
    const url = `redis://:hunter2@127.0.0.1:${await freePort()}`;
    const text = await refusal(openJobQueue({ ...QUEUE, cacheDir: tmp.path, redisUrl: url }));
    expect(text).toContain("ECONNREFUSED");
    expect(text).toContain("REDIS_URL");
    expect(text).toContain(":***@127.0.0.1");
    expect(text).not.toContain("hunter2");
  });
});

describe("npm start's checks", () => {
  const base = { HOME: "/nonexistent-home", APP_ID: "1" };

  it.each<[string, Record<string, string>, string]>([
    [
      "a malformed setting",
      { PATCHWRIGHT_CONCURRENCY: "lots" },
      'PATCHWRIGHT_CONCURRENCY: expected a whole number above 0, got "lots"',
    ],
    [
      "no worker and no Redis",
      { PATCHWRIGHT_WORKER: "off" },
      "PATCHWRIGHT_WORKER=off needs REDIS_URL",
    ],
    [
      "a REDIS_URL that is no Redis URL",
      { REDIS_URL: "http://user:hunter2@127.0.0.1:6379" },
      'REDIS_URL: expected redis://[user:password@]host:port[/db] (or rediss:// for TLS), got "http://user:***@127.0.0.1:6379/"',
    ],
  ])("refuse %s in one line", async (_case, env, words) => {
    const text = await refusal(
      checkAppCanStart({ ...base, PATCHWRIGHT_CACHE_DIR: tmp.path, ...env }),
    );
    expect(text).toContain(words);
    expect(text).not.toContain("hunter2");
  });

  it("take the REDIS_URL forms ioredis takes", () => {
    for (const url of [
      "redis://redis:6379",
      "rediss://u:p@cache.example:6380/2",
      "localhost:6379",
    ]) {
      expect(parseServiceEnv({ REDIS_URL: url }).redisUrl).toBe(url);
    }
  });

  it("refuse a cache folder the in-process worker cannot write", async () => {
    const text = await refusal(checkAppCanStart({ ...base, PATCHWRIGHT_CACHE_DIR: file }));
    expect(text).toContain("PATCHWRIGHT_CACHE_DIR");
  });
});

describe("the printed refusal", () => {
  it("is the refusal's own words; anything else says where to look; the stack only with debug", () => {
    const refused = new StartupRefusal("the cache folder /x cannot be used.");
    expect(refusalText(refused, { debug: false })).toBe(
      "patchwright cannot start: the cache folder /x cannot be used.\n",
    );
    expect(refusalText(new Error("boom\nmore"), { debug: false })).toBe(
      "patchwright cannot start: boom (LOG_LEVEL=debug shows where)\n",
    );
    const debug = refusalText(refused, { debug: true });
    expect(debug).toMatch(/^patchwright cannot start: the cache folder \/x cannot be used\.\n/);
    expect(debug).toMatch(/\n\s+at .+:\d+:\d+/);
  });
});
