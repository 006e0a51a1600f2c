import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultDepsConfig } from "../../../src/deps/config.js";
import { applyBump } from "../../../src/deps/managers/bump.js";
import { planDepsUpdates } from "../../../src/deps/plan/plan.js";
import { type LocalRegistry, startLocalRegistry } from "../../helpers/npm-registry.js";

/**
 * Advisories on packages the project does not name: found from every
 * version in package-lock.json, as npm audit does, and fixed by locking the
 * package again when its dependents' ranges allow a fixed version; listed
 * with the reason when they do not.
 */

const run = promisify(execFile);
const DAY = 86_400_000;
let root: string;
let registry: LocalRegistry;
let dir: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-deps-transitive-"));
  registry = await startLocalRegistry(root);
  const publish = (name: string, version: string, dependencies: Record<string, string> = {}) =>
    registry.publish({ name, version, manifest: { dependencies } });
  await publish("tr-leaf", "1.0.0");
  await publish("tr-pinned", "1.0.0");
  await publish("tr-parent", "1.0.0", { "tr-leaf": "^1.0.0" });
  await publish("tr-old", "1.0.0", { "tr-pinned": "1.0.0" });
  dir = join(root, "app");
  await run("mkdir", ["-p", dir]);
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({
      name: "app",
      version: "1.0.0",
      dependencies: { "tr-parent": "^1.0.0", "tr-old": "^1.0.0" },
    }),
  );
  await writeFile(join(dir, ".npmrc"), `registry=${registry.url}\naudit=false\nfund=false\n`);
  await run("npm", ["install", "--package-lock-only", "--ignore-scripts"], {
    cwd: dir,
    env: { ...process.env, ...registry.npmEnv },
  });
  // The fixes come out after the lockfile was made (and long enough ago to pass any age gate).
  await publish("tr-leaf", "1.0.1");
  await publish("tr-leaf", "2.0.0");
  await publish("tr-pinned", "1.0.1");
  for (const [name, version] of [
    ["tr-leaf", "1.0.1"],
    ["tr-leaf", "2.0.0"],
    ["tr-pinned", "1.0.1"],
  ] as const) {
    await registry.setPublishTime(name, version, new Date(Date.now() - 20 * DAY));
  }
  registry.setAdvisories({
    "tr-leaf": [
      {
        id: 2001,
        title: "ReDoS in parse()",
        severity: "high",
        vulnerable_versions: "<1.0.1",
        url: "https://example.com/2001",
      },
    ],
    "tr-pinned": [
      {
        id: 2002,
        title: "Path traversal",
        severity: "moderate",
        vulnerable_versions: "<1.0.1",
        url: "https://example.com/2002",
      },
    ],
  });
}, 120_000);

afterAll(async () => {
  await registry?.close();
  await rm(root, { recursive: true, force: true });
});

describe("transitive security updates (npm)", () => {
  it("asks about every locked version, relocks a fix its dependents allow, and explains one they do not", async () => {
    const { plan } = await planDepsUpdates({
      dir,
      config: defaultDepsConfig(),
      env: { HOME: join(root, "home"), PATH: process.env.PATH },
      clock: { now: () => Date.now() },
    });
    // npm audit's request: the transitive packages, with their locked versions.
    expect(registry.advisoryRequests.at(-1)).toMatchObject({
      "tr-leaf": ["1.0.0"],
      "tr-pinned": ["1.0.0"],
    });
    const security = plan.groups.filter((g) => g.security);
    expect(security.flatMap((g) => g.updates.map((u) => `${u.name} ${u.from}->${u.to}`))).toEqual([
      "tr-leaf 1.0.0->1.0.1",
    ]);
    const leaf = security[0]?.updates[0];
    expect(leaf?.advisories?.map((a) => a.id)).toEqual([2001]);
    expect(leaf?.locations).toEqual([
      {
        manifest: "package-lock.json",
        section: "dependencies",
        spec: "^1.0.0",
        newSpec: null,
        from: "1.0.0",
      },
    ]);
    const pinned = plan.skipped.find((s) => s.name === "tr-pinned");
    expect(pinned?.reason).toContain("pulled in by tr-old@1.0.0 (1.0.0)");
    expect(pinned?.reason).toContain("advisory 2002 (moderate)");
    expect(pinned?.reason).toContain("must be bumped first");

    // The bump: package.json untouched, npm locks tr-leaf again inside ^1.0.0.
    const before = await readFile(join(dir, "package.json"), "utf8");
    const outcome = await applyBump({
      dir,
      updates: leaf ? [leaf] : [],
      lockfilePath: "package-lock.json",
      run: async (command) => {
        const { stdout } = await run("sh", ["-c", command], {
          cwd: dir,
          env: { ...process.env, ...registry.npmEnv },
        });
        return {
          command,
          passed: true,
          exit: "0",
          timedOut: false,
          durationMs: 0,
          outputTail: stdout,
        };
      },
    });
    expect(outcome.files).toEqual(["package-lock.json"]);
    expect(await readFile(join(dir, "package.json"), "utf8")).toBe(before);
    const lock = JSON.parse(await readFile(join(dir, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version: string }>;
    };
    expect(lock.packages["node_modules/tr-leaf"]?.version).toBe("1.0.1");
    expect(lock.packages["node_modules/tr-pinned"]?.version).toBe("1.0.0");
  }, 120_000);
});
