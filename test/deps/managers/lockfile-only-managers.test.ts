import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBunLockfile } from "../../../src/deps/managers/bun/lockfile.js";
import { readPnpmLockfile } from "../../../src/deps/managers/pnpm/lockfile.js";
import { heldReason, overrideOf } from "../../../src/deps/plan/overrides.js";
import { readNpmProject } from "../../../src/deps/plan/project.js";
import { readReleaseAge, releaseAgeFor } from "../../../src/deps/plan/release-age.js";
import { resolvedBy } from "../../../src/deps/plan/versions.js";
import { createRegistryClient } from "../../../src/deps/registry/registry.js";
import { gitTestEnv } from "../../helpers/git-repos.js";
import { type LocalRegistry, startLocalRegistry } from "../../helpers/npm-registry.js";
import { LOCKFILES, lockedProject, type Manager, TOOLS, toolDepsJob } from "../manager-projects.js";

const run = promisify(execFile);

const readBunLock = (text: string) => readBunLockfile(text).versionOf;

/**
 * In-range updates of an application with a lockfile (range_strategy auto)
 * move the lockfile only, with each package manager's own tool, for real
 * against verdaccio: package.json keeps its ranges, the lockfile takes the
 * planned version, and the install from that lockfile passes.
 * - fx-steady 1.x is locked at 1.0.0; 1.1.0 (20 days old) is the newest.
 * - fx-range 1.0.x is locked at 1.0.0; the plan takes 1.0.1 (30 days old)
 *   because 1.0.2 is a day old, inside the cooldown. npm, pnpm, yarn 4 and
 *   bun get the cutoff and lock 1.0.1; yarn 1 has no age gate and would lock
 *   1.0.2, so the plan leaves fx-range out with that reason (the job's check
 *   of the locked version said it before the plan did).
 */

const DAY = 86_400_000;
let registry: LocalRegistry;
let root: string;
let env: Record<string, string>;
let now: number;
const projects = new Map<string, Record<string, string>>();
const pins: Record<Manager, string> = {
  npm: "npm@11.19.1",
  pnpm: "pnpm@10.34.8",
  "yarn-classic": "yarn@1.22.22",
  "yarn-berry": "yarn@4.18.1",
  bun: "bun@1.4.5",
};
const layouts = {
  // Not plain ^ or ~ ranges, which range_strategy auto bumps on an application.
  ranges: { "fx-range": "1.0.x", "fx-steady": "1.x" },
  // fx-steady's ^1.0.0 is bumped to ^1.1.0 while fx-range moves in the lockfile only.
  mixed: { "fx-range": "1.0.x", "fx-steady": "^1.0.0" },
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-deps-relock-"));
  registry = await startLocalRegistry(root);
  env = { ...gitTestEnv(join(root, "home")), COREPACK_ENABLE_STRICT: "0" };
  now = Date.now();
  for (const name of ["fx-range", "fx-steady"]) {
    await registry.publish({ name, version: "1.0.0" });
    // yarn 4 quarantines fresh releases by default.
    await registry.setPublishTime(name, "1.0.0", new Date(now - 300 * DAY));
  }
  // Each project is locked while only the first versions exist.
  for (const [manager, pin] of Object.entries(pins) as Array<[Manager, string]>) {
    for (const [layout, dependencies] of Object.entries(layouts)) {
      const files = await lockedProject({ registry, root, env }, manager, pin, dependencies);
      projects.set(`${manager} ${layout}`, files);
    }
  }
  // bun's workspace: the ranges are the member's, and bun.lock keeps them under its folder.
  const member = await lockedProject(
    { registry, root, env },
    "bun",
    pins.bun,
    layouts.ranges,
    "packages/x",
  );
  projects.set("bun workspace", member);
  // pnpm's: the member's ranges move in the lockfile only (a `pnpm update` filtered to the
  // member, pnpm/index.ts), beside a range of the root's that is rewritten, in one group.
  const pnpmWorkspace = await lockedProject(
    { registry, root, env },
    "pnpm",
    pins.pnpm,
    layouts.ranges,
    "packages/x",
    {
      "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
      "package.json": JSON.stringify({ dependencies: { "fx-steady": "^1.0.0" } }),
    },
  );
  projects.set("pnpm workspace", pnpmWorkspace);
  for (const [name, version] of [
    ["fx-range", "1.0.1"],
    ["fx-range", "1.0.2"],
    ["fx-steady", "1.1.0"],
  ] as const) {
    await registry.publish({ name, version });
  }
  const ages: Array<[string, string, number]> = [
    ["fx-range", "1.0.1", 30 * DAY],
    ["fx-range", "1.0.2", DAY],
    ["fx-steady", "1.1.0", 20 * DAY],
  ];
  for (const [name, version, age] of ages) {
    await registry.setPublishTime(name, version, new Date(now - age));
  }
}, 180_000);

afterAll(async () => {
  await registry?.close();
  await rm(root, { recursive: true, force: true });
});

/** What the lockfile locks a package at, in each tool's format. */
function lockedAt(lock: string, name: string): string[] {
  const patterns = [
    new RegExp(`node_modules/${name}"[^}]*?"version": "([\\d.]+)"`, "g"), // npm
    new RegExp(`\\n\\s+${name}:\\n\\s+specifier: [^\\n]+\\n\\s+version: ([\\d.]+)`, "g"), // pnpm
    new RegExp(`\\n"?${name}@[^\\n]*:\\n\\s+version:? "?([\\d.]+)"?`, "g"), // yarn 1 and 4
    new RegExp(`"(?:[^"]+/)?${name}": \\["${name}@([\\d.]+)"`, "g"), // bun
  ];
  return patterns.flatMap((p) => [...lock.matchAll(p)].map((m) => m[1] ?? ""));
}

/** A deps job on the project, with the tools from this repository. */
async function depsJob(
  manager: Manager,
  layout: keyof typeof layouts | "workspace",
  deps: Record<string, unknown>,
) {
  const files = projects.get(`${manager} ${layout}`) ?? {};
  const { repo, result } = await toolDepsJob(
    { registry, root, env, now },
    `relock-${manager}-${layout}`,
    files,
    {
      range_strategy: "auto",
      // The install from the new lockfile has to put both packages in place.
      verify: `node -e "require('fx-range'); require('fx-steady')"`,
      ...deps,
    },
  );
  expect(result.message).toBeUndefined();
  return { files, repo, result, lockfile: LOCKFILES[manager] };
}

describe.each(Object.keys(pins) as Manager[])("a %s application", (manager) => {
  it("moves in-range updates in the lockfile only, with its own tool, at the planned versions", async () => {
    const { files, repo, result, lockfile } = await depsJob(manager, "ranges", {});
    expect(lockedAt(files[lockfile] ?? "", "fx-range")).toEqual(["1.0.0"]);
    expect(lockedAt(files[lockfile] ?? "", "fx-steady")).toEqual(["1.0.0"]);
    const yarn1 = manager === "yarn-classic";
    // Every tool takes in-range updates but yarn 1, which would lock fx-range 1.0.2
    // (the local registry has no release of the tool itself).
    expect(result.plan?.skipped.map((s) => s.reason)).toEqual([
      ...(yarn1
        ? [
            "1.0.0 -> 1.0.1 not proposed: yarn would lock 1.0.2 instead, the newest release the range 1.0.x allows, which the plan passes over (released 1 day ago, inside the 3 days cooldown; yarn 1 has no age gate); a range that stops below it (an exact version) would take 1.0.1",
          ]
        : []),
      expect.stringMatching(/^packageManager field: .*not found on http:\/\/127\.0\.0\.1/),
    ]);
    expect(
      result.plan?.groups.map((g) => [
        g.slug,
        g.updates.map((u) => `${u.name} ${u.from}->${u.to}`),
      ]),
    ).toEqual([
      ["lockfile-only", [...(yarn1 ? [] : ["fx-range 1.0.0->1.0.1"]), "fx-steady 1.0.0->1.1.0"]],
    ]);
    const [group] = result.groups;
    const branch = group?.branch ?? "";
    // package.json is not touched: the ranges already allow the new versions.
    expect(repo.show(branch, "package.json")).toBe(files["package.json"]?.trimEnd());
    const lock = repo.show(branch, lockfile);
    expect(lockedAt(lock, "fx-steady")).toEqual(["1.1.0"]);
    expect(group?.verify?.passed).toBe(true);
    expect(group?.status).toBe("green");
    if (yarn1) {
      expect(lockedAt(lock, "fx-range")).toEqual(["1.0.0"]);
      return;
    }
    expect(lockedAt(lock, "fx-range")).toEqual(["1.0.1"]);
    expect(lock).not.toContain("1.0.2");
    // bun locked the versions pinned, then again with the ranges back: bun.lock records the ranges.
    if (manager === "bun") expect(lock).toContain('"fx-range": "1.0.x"');
  }, 240_000);

  it("rewrites one range and moves another in the lockfile only, in one group", async () => {
    const { files, repo, result, lockfile } = await depsJob(manager, "mixed", {
      groups: [{ name: "fx", patterns: ["fx-*"] }],
    });
    const [group] = result.groups;
    expect(
      result.plan?.groups.map((g) => [
        g.slug,
        g.updates.map((u) => `${u.name} ${u.locations.map((l) => l.newSpec ?? "(lockfile)")}`),
      ]),
    ).toEqual([
      ["fx", [...(manager === "yarn-classic" ? [] : ["fx-range (lockfile)"]), "fx-steady ^1.1.0"]],
    ]);
    const branch = group?.branch ?? "";
    expect(JSON.parse(repo.show(branch, "package.json")).dependencies).toEqual({
      "fx-range": "1.0.x",
      "fx-steady": "^1.1.0",
    });
    const lock = repo.show(branch, lockfile);
    expect(lock).not.toBe(files[lockfile]);
    expect(lockedAt(lock, "fx-steady")).toEqual(["1.1.0"]);
    expect(group?.verify?.passed).toBe(true);
    expect(lockedAt(lock, "fx-range")).toEqual([manager === "yarn-classic" ? "1.0.0" : "1.0.1"]);
    expect(group?.status).toBe("green");
    if (manager === "bun") expect(lock).toContain('"fx-range": "1.0.x"');
  }, 240_000);
});

/**
 * The member packages/x's ranges (fx-range 1.0.x, fx-steady 1.x) as the
 * workspace's lockfile locks them: 1.0.0 before, the plan's 1.0.1 and 1.1.0
 * after, and never fx-range 1.0.2, which is inside the cooldown.
 */
function expectMemberRelocked(
  read: (text: string) => (dir: string, name: string, range: string) => string | undefined,
  before: string,
  after: string,
): void {
  expect(read(before)("packages/x", "fx-range", "1.0.x")).toBe("1.0.0");
  const locked = read(after);
  expect(locked("packages/x", "fx-range", "1.0.x")).toBe("1.0.1");
  expect(locked("packages/x", "fx-steady", "1.x")).toBe("1.1.0");
  expect(after).not.toContain("1.0.2");
}

describe("a bun workspace", () => {
  it("moves a member's in-range updates in bun.lock only, under the member's folder", async () => {
    const { files, repo, result, lockfile } = await depsJob("bun", "workspace", {
      // bun links each member's own dependencies into its folder.
      verify: `cd packages/x && node -e "require('fx-range'); require('fx-steady')"`,
    });
    expect(
      result.plan?.groups.map((g) => [
        g.slug,
        g.updates.map((u) => `${u.name} ${u.from}->${u.to} ${u.locations.map((l) => l.manifest)}`),
      ]),
    ).toEqual([
      [
        "lockfile-only",
        [
          "fx-range 1.0.0->1.0.1 packages/x/package.json",
          "fx-steady 1.0.0->1.1.0 packages/x/package.json",
        ],
      ],
    ]);
    const [group] = result.groups;
    const branch = group?.branch ?? "";
    for (const manifest of ["package.json", "packages/x/package.json"])
      expect(repo.show(branch, manifest)).toBe(files[manifest]?.trimEnd());
    const lock = repo.show(branch, lockfile);
    expectMemberRelocked(readBunLock, files[lockfile] ?? "", lock);
    expect(lock).toContain('"fx-range": "1.0.x"');
    expect(group?.verify?.passed).toBe(true);
    expect(group?.status).toBe("green");
  }, 240_000);
});

describe("a pnpm workspace", () => {
  it("rewrites the root's range and moves the member's in the lockfile only, in one group", async () => {
    const { files, repo, result, lockfile } = await depsJob("pnpm", "workspace", {
      groups: [{ name: "fx", patterns: ["fx-*"] }],
      verify: `node -e "require('fx-steady')" && cd packages/x && node -e "require('fx-range'); require('fx-steady')"`,
    });
    expect(
      result.plan?.groups.map((g) => [
        g.slug,
        g.updates.map((u) =>
          u.locations.map((l) => `${u.name} ${l.manifest} ${l.newSpec ?? "(lockfile)"}`).join(", "),
        ),
      ]),
    ).toEqual([
      [
        "fx",
        [
          "fx-range packages/x/package.json (lockfile)",
          "fx-steady package.json ^1.1.0, fx-steady packages/x/package.json (lockfile)",
        ],
      ],
    ]);
    const [group] = result.groups;
    const branch = group?.branch ?? "";
    expect(JSON.parse(repo.show(branch, "package.json")).dependencies).toEqual({
      "fx-steady": "^1.1.0",
    });
    expect(repo.show(branch, "packages/x/package.json")).toBe(
      files["packages/x/package.json"]?.trimEnd(),
    );
    const lock = repo.show(branch, lockfile);
    const readPnpmLock = (text: string) => readPnpmLockfile(text).versionOf;
    expectMemberRelocked(readPnpmLock, files[lockfile] ?? "", lock);
    expect(readPnpmLock(lock)("", "fx-steady", "^1.1.0")).toBe("1.1.0");
    expect(group?.verify?.passed).toBe(true);
    expect(group?.status).toBe("green");
  }, 240_000);
});

/** A project of `manager` on these dependencies, locked by its tool with `extra` settings files. */
function lockWith(
  manager: Manager,
  dependencies: Record<string, string>,
  extra: Record<string, string>,
) {
  return lockedProject(
    { registry, root, env },
    manager,
    pins[manager],
    dependencies,
    undefined,
    extra,
  );
}

/**
 * The age gates' exemptions as the tools themselves apply them: fx-gate-free
 * and fx-gate-held each have a 1.1.0 two hours old, under a day's gate that
 * exempts fx-gate-free (pnpm's pattern, yarn 4.18's default gate with a
 * glob, bun's exact name). Each tool locks `^1.0.0` with what its gate
 * allows, and the plan's reading of the same files must say the same.
 */
describe("the package managers' age-gate exemptions", () => {
  const configs: Array<[Manager, Record<string, string>]> = [
    [
      "pnpm",
      {
        "pnpm-workspace.yaml":
          "minimumReleaseAge: 1440\nminimumReleaseAgeExclude:\n  - 'fx-gate-f*'\n",
      },
    ],
    // No npmMinimalAgeGate: yarn 4.15 and later hold releases for a day by default.
    ["yarn-berry", { ".yarnrc.yml": 'npmPreapprovedPackages:\n  - "fx-gate-f*"\n' }],
    [
      "bun",
      {
        "bunfig.toml":
          '[install]\nminimumReleaseAge = 86400\nminimumReleaseAgeExcludes = [\n  "fx-gate-free",\n]\n',
      },
    ],
  ];

  beforeAll(async () => {
    for (const name of ["fx-gate-free", "fx-gate-held"]) {
      await registry.publish({ name, version: "1.0.0" });
      await registry.setPublishTime(name, "1.0.0", new Date(now - 300 * DAY));
      await registry.publish({ name, version: "1.1.0" });
      await registry.setPublishTime(name, "1.1.0", new Date(Date.now() - 2 * 3_600_000));
    }
  }, 60_000);

  it.each(configs)(
    "%s locks what the plan's reading of its gate allows",
    async (manager, extra) => {
      const dependencies = { "fx-gate-free": "^1.0.0", "fx-gate-held": "^1.0.0" };
      const files = await lockWith(manager, dependencies, extra);
      const dir = join(root, `gate-${manager}`);
      await mkdir(dir, { recursive: true });
      for (const [path, text] of Object.entries(files)) await writeFile(join(dir, path), text);
      const age = await readReleaseAge(
        dir,
        { options: {} },
        { name: manager, pinned: pins[manager] },
      );
      const ours = (name: string) => {
        const gate = releaseAgeFor(age, name, "1.1.0");
        return gate && gate.ms > 2 * 3_600_000 ? "1.0.0" : "1.1.0";
      };
      const lock = files[LOCKFILES[manager]] ?? "";
      const locked = (name: string) =>
        manager === "bun" ? [readBunLock(lock)("", name, "^1.0.0")] : lockedAt(lock, name);
      expect([locked("fx-gate-free"), locked("fx-gate-held")]).toEqual([["1.1.0"], ["1.0.0"]]);
      expect([ours("fx-gate-free"), ours("fx-gate-held")]).toEqual(["1.1.0", "1.0.0"]);
    },
    60_000,
  );
});

/**
 * Why the plan leaves an overridden dependency alone: with fx-steady held at
 * 1.0.0 by the project's override, a manifest bumped to ^1.1.0 installs
 * 1.0.0 all the same (pnpm, yarn 4, bun), or does not install at all
 * (npm: EOVERRIDE). The plan's reading of each tool's setting names it.
 * yarn 1's resolutions do not reach a direct dependency: the bump takes
 * effect, and the plan reads no override.
 */
describe("the package managers' overrides", () => {
  const held: Array<[Manager, Record<string, string>]> = [
    ["npm", { "package.json": JSON.stringify({ overrides: { "fx-steady": "1.0.0" } }) }],
    ["pnpm", { "pnpm-workspace.yaml": "overrides:\n  fx-steady: 1.0.0\n" }],
    [
      "yarn-classic",
      { "package.json": JSON.stringify({ resolutions: { "**/fx-steady": "1.0.0" } }) },
    ],
    ["yarn-berry", { "package.json": JSON.stringify({ resolutions: { "fx-steady": "1.0.0" } }) }],
    ["bun", { "package.json": JSON.stringify({ overrides: { "fx-steady": "1.0.0" } }) }],
  ];

  it.each(held)(
    "%s: what an override on a bumped direct dependency installs, and what the plan reads",
    async (manager, extra) => {
      const dependencies = { "fx-steady": "^1.1.0" };
      const installed = await lockWith(manager, dependencies, extra).then(
        (files) => lockedAt(files[LOCKFILES[manager]] ?? "", "fx-steady"),
        (error: Error) => /EOVERRIDE/.exec(error.message)?.[0] ?? error.message,
      );
      const yarn1 = manager === "yarn-classic";
      // yarn 1 also locks the resolution's own entry, which nothing uses.
      expect(installed).toEqual(
        manager === "npm" ? "EOVERRIDE" : yarn1 ? ["1.0.0", "1.1.0"] : ["1.0.0"],
      );
      const dir = join(root, `override-${manager}`);
      await mkdir(dir, { recursive: true });
      const manifest = {
        name: "app",
        version: "1.0.0",
        packageManager: pins[manager],
        dependencies,
        ...JSON.parse(extra["package.json"] ?? "{}"),
      };
      await writeFile(join(dir, "package.json"), JSON.stringify(manifest));
      if (extra["pnpm-workspace.yaml"])
        await writeFile(join(dir, "pnpm-workspace.yaml"), extra["pnpm-workspace.yaml"]);
      const project = await readNpmProject(dir);
      const [entry] = project.manifests[0]?.deps ?? [];
      if (!entry) throw new Error("no dependency read");
      const override = overrideOf(project.overrides, entry, "^1.1.0");
      if (yarn1) expect(override).toBeUndefined();
      else expect(override && heldReason(override)).toMatch(/^held by .*fx-steady.*"1\.0\.0"/);
    },
    60_000,
  );
});

/**
 * What each tool locks when a range that its locked version no longer
 * satisfies is written over its lockfile, as a bump's raised floor is: the
 * newest release the new range allows (1.1.0 for `^1.0.1` over a lock of
 * 1.0.0), whatever version a plan had in mind. The plan's resolvedBy says
 * the same, so it leaves out a patch whose new range would lock a minor the
 * config does not take, rather than have the job drop it.
 */
describe("a range written over a lockfile", () => {
  const commands: Record<Manager, string> = {
    npm: "npm install --package-lock-only --ignore-scripts",
    pnpm: `${TOOLS.pnpm} install --lockfile-only --ignore-scripts`,
    "yarn-classic": `${TOOLS["yarn-classic"]} install --ignore-scripts`,
    "yarn-berry": `${TOOLS["yarn-berry"]} install --mode=update-lockfile`,
    bun: `${TOOLS.bun} install --lockfile-only --ignore-scripts`,
  };

  it.each(Object.keys(pins) as Manager[])(
    "%s locks the newest release the new range allows, as the plan's resolvedBy says",
    async (manager) => {
      const files = await lockWith(manager, { "fx-steady": "1.0.0" }, {});
      const dir = join(root, `rewrite-${manager}`);
      await mkdir(dir, { recursive: true });
      for (const [path, text] of Object.entries(files)) await writeFile(join(dir, path), text);
      const manifest = JSON.parse(files["package.json"] ?? "{}");
      manifest.dependencies = { "fx-steady": "^1.0.1" };
      await writeFile(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
      await run("bash", ["-c", commands[manager]], {
        cwd: dir,
        env: { ...env, npm_config_registry: registry.url, YARN_ENABLE_IMMUTABLE_INSTALLS: "false" },
      });
      const lock = await readFile(join(dir, LOCKFILES[manager]), "utf8");
      const locked =
        manager === "bun"
          ? [readBunLock(lock)("", "fx-steady", "^1.0.0")]
          : lockedAt(lock, "fx-steady");
      const packument = await createRegistryClient({
        npm: { registry: registry.url, options: {}, referencedEnv: [] },
      }).packument("fx-steady");
      expect([locked, resolvedBy(packument, "^1.0.1", Date.now())]).toEqual([["1.1.0"], "1.1.0"]);
    },
    60_000,
  );
});
