import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { defaultDepsConfig } from "../../../src/deps/config.js";
import { planDepsUpdates } from "../../../src/deps/plan/plan.js";
import { readNpmConfig } from "../../../src/deps/registry/npmrc.js";
import { createRegistryClient, type RegistryClient } from "../../../src/deps/registry/registry.js";
import { makeTempDir } from "../../helpers/temp-dir.js";
import { createFixtureWorld, demoAppFiles, type FixtureWorld } from "../registry-fixtures.js";

/**
 * What a plan asks the registry (issue #28): the abbreviated document of
 * every package once, across all the workspace's manifests, and the full one
 * (publish times, repository, scripts) only for packages with a newer
 * version to weigh; and the same plan as a client that asks only full documents.
 */

let world: FixtureWorld;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-deps-packuments-"));
  world = await createFixtureWorld(root);
  // Up to date wherever it is used: nothing newer to weigh, so no full document.
  await world.registry.publish({ name: "fx-steady", version: "1.0.0" });
}, 120_000);

afterAll(async () => {
  await world?.registry.close();
  await rm(root, { recursive: true, force: true });
});

const env = () => ({ HOME: join(root, "nohome"), PATH: process.env.PATH });

/** The demo app with two more workspaces that share its dependencies and add fx-steady. */
async function monorepo(): Promise<string> {
  const dir = await makeTempDir("pw-mono-");
  const files = {
    ...(await demoAppFiles(world)),
    "packages/web/package.json": JSON.stringify({
      name: "@demo/web",
      version: "1.0.0",
      dependencies: { "fx-greet": "^1.0.0", "fx-steady": "^1.0.0" },
      devDependencies: { "fx-util": "~1.2.0" },
    }),
    "packages/cli/package.json": JSON.stringify({
      name: "@demo/cli",
      version: "1.0.0",
      dependencies: { "fx-greet": "^1.0.0", "fx-steady": "1.0.0", "@demo/lib": "*" },
      peerDependencies: { "fx-new": "^1.0.0" },
    }),
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

const ABBREVIATED = "application/vnd.npm.install-v1";

function packumentGets(since: number) {
  const counts = new Map<string, { abbreviated: number; full: number }>();
  for (const { path, accept } of world.registry.getRequests.slice(since)) {
    if (path.includes("/-/")) continue;
    const name = path.replace(/^\//, "");
    const count = counts.get(name) ?? { abbreviated: 0, full: 0 };
    if (accept.startsWith(ABBREVIATED)) count.abbreviated += 1;
    else count.full += 1;
    counts.set(name, count);
  }
  return Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
}

describe("the packuments a monorepo plan fetches", () => {
  it("asks each package once, and its full document only when it has a newer version", async () => {
    const dir = await monorepo();
    const since = world.registry.getRequests.length;
    const { plan, registry } = await planDepsUpdates({
      dir,
      config: defaultDepsConfig(),
      env: env(),
      clock: { now: () => world.now },
    });
    expect(plan.manifests).toEqual([
      "package.json",
      "packages/cli/package.json",
      "packages/lib/package.json",
      "packages/web/package.json",
    ]);
    expect(packumentGets(since)).toEqual({
      "fx-broken": { abbreviated: 1, full: 1 },
      "fx-greet": { abbreviated: 1, full: 1 },
      "fx-new": { abbreviated: 1, full: 1 },
      "fx-steady": { abbreviated: 1, full: 0 },
      "fx-util": { abbreviated: 1, full: 1 },
    });
    expect(registry.stats?.()).toMatchObject({ documents: 9, abbreviated: 5, names: 5 });
  });

  it("plans the same as a client that asks only full documents", async () => {
    const dir = await monorepo();
    const plan = async (registry: RegistryClient | undefined) =>
      (
        await planDepsUpdates({
          dir,
          config: defaultDepsConfig(),
          env: env(),
          clock: { now: () => world.now },
          ...(registry ? { registry } : {}),
        })
      ).plan;
    const npm = await readNpmConfig({ dir, env: env() });
    const { abbreviatedPackument: _never, ...fullOnly } = createRegistryClient({ npm });
    const since = world.registry.getRequests.length;
    const before = await plan(fullOnly);
    expect(
      Object.values(packumentGets(since)).every((c) => c.abbreviated === 0 && c.full === 1),
    ).toBe(true);
    const after = await plan(undefined);
    expect(after).toEqual(before);
    // What the abbreviated document lacks is still in the plan: release ages, links, scripts, deprecations.
    const updates = after.groups.flatMap((g) => g.updates);
    const greet = updates.find((u) => u.name === "fx-greet");
    expect(greet?.publishedAt).toBe(new Date(world.now - 200 * 86_400_000).toISOString());
    expect(greet?.links.releases).toBe("https://github.com/example/fx-greet/releases");
    expect(greet?.passedOver).toEqual(["1.1.0: deprecated: 1.1.0 lost the greeting; use 1.0.1"]);
    expect(updates.find((u) => u.name === "fx-util")?.newInstallScripts).toEqual(["postinstall"]);
    expect(after.skipped.map((s) => s.reason)).toContain(
      "1.0.0 kept: 1.0.1: released 1 hour ago, inside the 3 days cooldown",
    );
  });

  it("prints the plan's timing with --dry-run --json", async () => {
    const dir = await monorepo();
    let out = "";
    const code = await main(["deps", "--cwd", dir, "--dry-run", "--json"], {
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: () => {} },
      env: env(),
      cwd: root,
      clock: { now: () => world.now },
      onInterrupt: () => () => {},
    });
    expect(code).toBe(0);
    const printed = JSON.parse(out) as { groups: unknown[]; timing: Record<string, number> };
    expect(printed.groups.length).toBeGreaterThan(0);
    expect(printed.timing).toMatchObject({
      packuments: 9,
      abbreviatedPackuments: 5,
      packageNames: 5,
    });
    expect(printed.timing.planMs).toBeGreaterThan(0);
    expect(printed.timing.ms).toBeGreaterThanOrEqual(printed.timing.planMs ?? 0);
    expect(printed.timing.peakRssMb).toBeGreaterThan(10);
    expect(printed.timing.packumentMb).toBeGreaterThanOrEqual(0);
  });
});
