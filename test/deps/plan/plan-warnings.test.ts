import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import type { UpdateGroup } from "../../../src/deps/plan/groups.js";
import { renderDepsJobSummary } from "../../../src/deps/publish/job-summary.js";
import { renderDepsPullRequestBody } from "../../../src/deps/publish/pr-body.js";
import {
  greenResult,
  memoryRegistry,
  NOW,
  npmLock,
  packument,
  planProject,
  writeProject,
} from "../memory-registry.js";

/**
 * A check that could not run is a warning, never a left-out dependency:
 * at the top of the plan, of every pull request and of the job's summary,
 * and a field in the JSON; `--strict` turns it into exit code 3.
 */

let root: string;
let server: Server;
let registryUrl: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-plan-warnings-"));
  // A registry that serves packuments and refuses the bulk advisory route, as some proxies do.
  const doc = packument("lib", ["1.0.0", "1.1.0"]);
  server = createServer((req, res) => {
    if (req.method === "POST") {
      res.writeHead(405, { "content-type": "application/json" }).end("{}");
      return;
    }
    if (req.url === "/lib") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  registryUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
  await rm(root, { recursive: true, force: true });
});

const app = {
  "package.json": JSON.stringify({ name: "app", dependencies: { lib: "^1.0.0" } }),
  "package-lock.json": npmLock({ lib: "1.0.0" }),
};

describe("a security check that could not run", () => {
  it("is a warning of the plan, not a left-out dependency, and its URL keeps no credentials", async () => {
    const failing = new Error(
      "405 Method Not Allowed - POST https://ci:s3cret@registry.example/-/npm/v1/security/advisories/bulk",
    );
    const { plan } = await planProject(
      join(root, "memory"),
      app,
      memoryRegistry([packument("lib", ["1.0.0", "1.1.0"])], failing),
    );
    expect(plan.warnings).toEqual([
      {
        check: "advisories",
        error:
          "405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk",
      },
    ]);
    expect(plan.skipped).toEqual([]);
    expect(plan.groups.flatMap((g) => g.updates.map((u) => u.to))).toEqual(["1.1.0"]);

    const group = plan.groups[0] as UpdateGroup;
    const result = greenResult(group);
    const body = renderDepsPullRequestBody(result, { now: NOW, warnings: plan.warnings });
    // Right after the hidden marker, before the table.
    expect(body.split("\n\n")[1]).toBe(
      "> [!WARNING]\n> the security advisory check could not run (405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk), so security fixes may be missing from this plan.",
    );
    const summary = renderDepsJobSummary({
      status: "done",
      plan,
      groups: [result],
      deferred: [],
      declined: [],
      waiting: [],
      durationMs: 0,
    });
    expect(summary.split("\n")[0]).toMatch(/^WARNING the security advisory check could not run/);
  });

  it("exits 0 with the warning on top for --dry-run, and 3 with --strict", async () => {
    const dir = join(root, "cli");
    await writeProject(dir, { ...app, ".npmrc": `registry=${registryUrl}\n` });
    const run = async (...flags: string[]) => {
      let out = "";
      let err = "";
      const code = await main(["deps", "--cwd", dir, "--dry-run", ...flags], {
        stdout: { write: (t: string) => (out += t) },
        stderr: { write: (t: string) => (err += t) },
        env: { HOME: join(root, "home"), PATH: process.env.PATH },
        cwd: root,
        clock: { now: () => NOW },
        onInterrupt: () => () => {},
      });
      return { code, out, err };
    };
    const plain = await run();
    expect(plain.err).toBe("");
    expect(plain.code).toBe(0);
    expect(plain.out.split("\n")[2]).toMatch(
      /^Warning: the security advisory check could not run \(.*405.*\), so security fixes may be missing from this plan\.$/,
    );
    expect(plain.out).not.toContain("Left out");
    expect((await run("--strict")).code).toBe(3);
    const json = await run("--json", "--strict");
    expect(json.code).toBe(3);
    expect(JSON.parse(json.out).warnings).toEqual([
      { check: "advisories", error: expect.stringContaining("405") },
    ]);
  });
});
