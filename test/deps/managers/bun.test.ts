import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScriptedModel } from "../../../src/agent/model/scripted.js";
import { defaultConfig } from "../../../src/config/schema.js";
import { parseDepsConfig } from "../../../src/deps/config.js";
import { readBunLockfile } from "../../../src/deps/managers/bun/lockfile.js";
import { detectPackageManager, managerCommands } from "../../../src/deps/managers/index.js";
import { lockedMismatches } from "../../../src/deps/managers/locked-check.js";
import { missingTool } from "../../../src/deps/managers/tool-check.js";
import { planDepsUpdates } from "../../../src/deps/plan/plan.js";
import { ProjectError, readNpmProject } from "../../../src/deps/plan/project.js";
import { readReleaseAge } from "../../../src/deps/plan/release-age.js";
import { runDepsJob } from "../../../src/deps/run-deps-job.js";
import type { Update } from "../../../src/deps/update.js";
import { type SandboxLauncher, unsandboxed } from "../../../src/sandbox/sandbox.js";
import { chooseSandbox } from "../../../src/sandbox/select.js";
import { NO_HOST_TRUST } from "../../../src/sandbox/trust/host-trust.js";
import { createBareRepo, gitTestEnv } from "../../helpers/git-repos.js";
import { lockedProject, TOOLS } from "../manager-projects.js";
import { createFixtureWorld, type FixtureWorld } from "../registry-fixtures.js";

const readBunLock = (text: string) => readBunLockfile(text).versionOf;

/**
 * bun projects bumped by bun itself, for real: against verdaccio, and in a
 * real bubblewrap sandbox, with `bun` found on the PATH as production finds
 * it (the Docker image puts it in /usr/local/bin). Here the PATH holds this
 * repository's devDependency: its .bin link and the folder it points into.
 */

const run = promisify(execFile);
const BUN = TOOLS.bun as string;
const PIN = "bun@1.4.5";
const BIN_PATH = [join(dirname(dirname(dirname(BUN))), ".bin"), dirname(BUN)].join(delimiter);
const PATH = `${BIN_PATH}${delimiter}${process.env.PATH ?? ""}`;
const FIX =
  "install bun in a folder the sandbox shows (a system folder such as /usr/local/bin, where the Docker image has it, or a toolchain's on the PATH: oven-sh/setup-bun's ~/.bun/bin is one; not patchwright's own folder)";

let world: FixtureWorld;
let root: string;
let env: Record<string, string>;
let files: Record<string, string>;
let sandbox: SandboxLauncher;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-deps-bun-"));
  world = await createFixtureWorld(root);
  env = gitTestEnv(join(root, "home"));
  files = await lockedProject({ registry: world.registry, root, env }, "bun", PIN);
  // As the App chooses it: the caches (worktrees included) hidden, the PATH's toolchains shown.
  const choice = await chooseSandbox({
    mode: "service",
    optOut: false,
    optOutName: "PATCHWRIGHT_UNSANDBOXED=1",
    path: PATH,
    home: process.env.HOME || homedir(),
    hidden: [join(root, "caches")],
    env: {},
    cwd: root,
    hostTrust: NO_HOST_TRUST,
  });
  if (choice.launcher.kind !== "bubblewrap") throw new Error(`no sandbox: ${choice.warning}`);
  sandbox = choice.launcher;
}, 180_000);

afterAll(async () => {
  await world?.registry.close();
  await rm(root, { recursive: true, force: true });
});

async function writeProject(name: string, content: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(content)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

function depsConfig(deps: Record<string, unknown>) {
  const parsed = parseDepsConfig(deps);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

function runJob(name: string, content: Record<string, string>, deps: Record<string, unknown>) {
  const repo = createBareRepo({ root, env, files: content, name });
  const result = runDepsJob(
    {
      secrets: [],
      cacheDir: join(root, "caches", name),
      sandbox,
      envSource: { ...env, PATH },
      clock: { now: () => world.now },
      createModel: () => createScriptedModel([]),
    },
    { owner: "o", repo: "r", cloneUrl: repo.url, config: { ...defaultConfig(), deps } },
  );
  return { repo, result };
}

const lockedAt = (lock: string, name: string, dir = "") => readBunLock(lock)(dir, name, "unused");

describe("a bun project", () => {
  it("is detected from packageManager and bun.lock, and planned from what bun.lock holds", async () => {
    const dir = await writeProject("plan", files);
    const detected = await detectPackageManager(dir, JSON.parse(files["package.json"] ?? "{}"));
    expect(detected).toEqual({
      name: "bun",
      lockfile: "bun.lock",
      evidence: `package.json "packageManager": "${PIN}"`,
      pinned: PIN,
    });
    const { plan, project } = await planDepsUpdates({
      dir,
      config: depsConfig({ ignore: ["fx-broken", "fx-new"], update_types: ["patch", "minor"] }),
      env: { HOME: join(root, "nohome"), PATH },
      clock: { now: () => world.now },
    });
    expect(project.lockedVersionOf?.("", "fx-greet", "1.0.0")).toBe("1.0.0");
    expect(plan.manager).toBe("bun");
    expect(plan.groups.map((g) => g.updates.map((u) => `${u.name} ${u.from}->${u.to}`))).toEqual([
      ["fx-greet 1.0.0->1.0.1", "fx-util 1.2.0->1.2.1"],
    ]);
  });

  it("keeps out what bunfig.toml's minimumReleaseAge (seconds) would refuse", async () => {
    const dir = await writeProject("plan-bunfig", {
      ...files,
      // 20 days: fx-util 1.2.1 is 10 days old.
      "bunfig.toml": "[install]\nexact = true\nminimumReleaseAge = 1_728_000 # 20 days\n",
    });
    const { plan } = await planDepsUpdates({
      dir,
      config: depsConfig({
        ignore: ["fx-broken", "fx-new"],
        update_types: ["patch", "minor"],
        cooldown_days: 0,
      }),
      env: { HOME: join(root, "nohome"), PATH },
      clock: { now: () => world.now },
    });
    expect(plan.releaseAge).toMatchObject({
      ms: 1_728_000_000,
      source: "minimumReleaseAge = 1728000 in bunfig.toml [install]",
    });
    expect(plan.groups.map((g) => g.updates.map((u) => `${u.name}->${u.to}`))).toEqual([
      ["fx-greet->1.0.1"],
    ]);
    expect(plan.skipped.find((s) => s.name === "fx-util")?.reason).toMatch(/1\.2\.1/);
  });

  it("is bumped, locked, installed and tested by bun in the sandbox, found on the PATH", async () => {
    const { repo, result } = runJob("repo-bun", files, {
      ignore: ["fx-broken", "fx-new"],
      update_types: ["patch", "minor"],
    });
    const done = await result;
    expect(done.message).toBeUndefined();
    expect(done.groups.map((g) => [g.group.slug, g.status, g.verify?.command])).toEqual([
      ["minor-and-patch", "green", "bun run test"],
    ]);
    const branch = "agent/deps/minor-and-patch";
    expect(JSON.parse(repo.show(branch, "package.json")).dependencies).toEqual({
      "fx-greet": "1.0.1",
      "fx-util": "1.2.1",
    });
    const lock = repo.show(branch, "bun.lock");
    expect(lock).not.toBe(files["bun.lock"]);
    expect([lockedAt(lock, "fx-greet"), lockedAt(lock, "fx-util")]).toEqual(["1.0.1", "1.2.1"]);
    expect(lock).not.toContain("fx-greet@1.0.0");
  }, 240_000);

  it("locks the planned version of a range, not a newer one inside the cooldown", async () => {
    const ranged = await lockedProject({ registry: world.registry, root, env }, "bun", PIN, {
      "fx-greet": "^1.0.0",
      "fx-util": "1.2.0",
    });
    const { repo, result } = runJob("range-bun", ranged, {
      ignore: ["fx-util"],
      update_types: ["major"],
      verify: null,
    });
    const done = await result;
    expect(done.message).toBeUndefined();
    // fx-greet 2.1.0 is a day old: without bun's --minimum-release-age it would be locked.
    expect(done.plan?.groups.map((g) => g.updates.map((u) => `${u.name}->${u.to}`))).toEqual([
      ["fx-greet->2.0.0"],
    ]);
    const [group] = done.groups;
    expect(group?.status).toBe("green");
    const lock = repo.show(group?.branch ?? "", "bun.lock");
    expect(lockedAt(lock, "fx-greet")).toBe("2.0.0");
    expect(lock).not.toContain("2.1.0");
  }, 240_000);

  it("stops before any group, saying what to install, when bun cannot be started", async () => {
    const repo = createBareRepo({ root, env, files, name: "no-bun" });
    const result = await runDepsJob(
      {
        secrets: [],
        cacheDir: join(root, "caches", "no-bun"),
        sandbox,
        envSource: { ...env, PATH },
        clock: { now: () => world.now },
        createModel: () => createScriptedModel([]),
        packageManagers: { bun: join(root, "nowhere", "bun") },
      },
      {
        owner: "o",
        repo: "r",
        cloneUrl: repo.url,
        config: { ...defaultConfig(), deps: { ignore: ["fx-broken", "fx-new"] } },
      },
    );
    expect(result.status).toBe("error");
    expect(result.message).toBe(
      `this repository uses bun (package.json "packageManager": "${PIN}"), but ${join(root, "nowhere", "bun")} does not exist or is not executable; ${FIX}. Nothing was changed.`,
    );
    expect(result.plan?.groups.length).toBeGreaterThan(0);
    expect(result.groups).toEqual([]);
    expect(repo.sha("agent/deps/minor-and-patch")).toBeNull();
  }, 120_000);
});

describe("bunfig.toml's minimumReleaseAge", () => {
  it("is read from [install] or as a dotted key, never from another table", async () => {
    let made = 0;
    const age = async (bunfig: string) => {
      const dir = await writeProject(`bunfig-${made++}`, { "bunfig.toml": bunfig });
      return readReleaseAge(dir, { options: {} });
    };
    expect(await age("install.minimumReleaseAge = 3600\n")).toMatchObject({
      ms: 3_600_000,
      source: "minimumReleaseAge = 3600 in bunfig.toml [install]",
    });
    expect(
      await age("[install.cache]\nminimumReleaseAge = 3600\n[test]\nroot = 1\n"),
    ).toBeUndefined();
    expect(await age("[test]\nminimumReleaseAge = 3600\n")).toBeUndefined();
    // npm's min-release-age (days) is stricter than bun's hour: the strictest wins.
    const dir = await writeProject("bunfig-npm", {
      "bunfig.toml": "[install]\nminimumReleaseAge = 3600\n",
    });
    expect((await readReleaseAge(dir, { options: { "min-release-age": "2" } }))?.source).toBe(
      "min-release-age=2 (.npmrc)",
    );
  });
});

describe("bun's lockfile", () => {
  it("gives each workspace its own version where bun nests one, else the hoisted one", async () => {
    const dir = await writeProject("workspaces", {
      "package.json": JSON.stringify({
        name: "app",
        private: true,
        workspaces: ["packages/*"],
        dependencies: { "fx-greet": "1.0.0" },
      }),
      "packages/a/package.json": JSON.stringify({
        name: "@app/a",
        dependencies: { "fx-greet": "^2.0.0", "fx-util": "1.2.0" },
      }),
    });
    await run(BUN, ["install", "--lockfile-only", "--ignore-scripts"], {
      cwd: dir,
      env: { ...env, PATH, BUN_CONFIG_REGISTRY: world.registry.url },
    });
    const text = await readFile(join(dir, "bun.lock"), "utf8");
    const project = await readNpmProject(dir);
    expect(project.manager.name).toBe("bun");
    const locked = project.lockedVersionOf;
    expect(locked?.("", "fx-greet", "1.0.0")).toBe("1.0.0");
    expect(locked?.("packages/a", "fx-greet", "^2.0.0")).toBe("2.1.0");
    expect(locked?.("packages/a", "fx-util", "1.2.0")).toBe("1.2.0");
    expect(locked?.("", "fx-missing", "1.0.0")).toBeUndefined();

    const planned: Update = {
      name: "fx-greet",
      from: "1.0.0",
      to: "2.0.0",
      type: "major",
      locations: [
        {
          manifest: "packages/a/package.json",
          section: "dependencies",
          spec: "^1.0.0",
          newSpec: "^2.0.0",
          from: "1.0.0",
        },
      ],
      links: {},
      newInstallScripts: [],
      passedOver: [],
    };
    expect(
      lockedMismatches("bun.lock", text, [planned]).map((m) => [m.update.name, m.locked]),
    ).toEqual([["fx-greet", "2.1.0"]]);
  }, 60_000);

  it("reads bun's trailing commas and comments, not commas inside strings", () => {
    const text = [
      "{",
      "  // written by hand",
      '  "lockfileVersion": 1, /* old */',
      '  "workspaces": { "": { "name": "x,]", "dependencies": { "a": "^1.0.0", }, }, },',
      '  "packages": {',
      '    "a": ["a@1.4.2", "", {}, "sha512-a,}"],',
      '    "@s/b": ["@s/b@0.3.0-beta.1", "", {}, ""],',
      "  },",
      "}",
    ].join("\n");
    expect(lockedAt(text, "a")).toBe("1.4.2");
    expect(lockedAt(text, "@s/b")).toBe("0.3.0-beta.1");
  });

  it("is refused as bun.lockb, with how to move to bun.lock", async () => {
    const { "bun.lock": _text, ...rest } = files;
    const dir = await writeProject("lockb", {
      ...rest,
      "bun.lockb": "#!/usr/bin/env bun\nbun-lockfile-format-v0\n",
    });
    await expect(readNpmProject(dir)).rejects.toThrow(ProjectError);
    await expect(readNpmProject(dir)).rejects.toThrow(
      "bun.lockb is bun's binary lockfile, which patchwright cannot read or show in a pull request; switch to the text lockfile with `bun install --save-text-lockfile` (bun 1.2+), commit bun.lock and delete bun.lockb",
    );
  });
});

describe("bun's commands", () => {
  const manager = { name: "bun", lockfile: "bun.lock", evidence: "bun.lock" } as const;

  it("pass the cutoff to bun as an age in seconds, rounded up", () => {
    const commands = managerCommands(manager, { bun: "bun" });
    const before = new Date(Date.now() - 3 * 86_400_000);
    const age = Number(/--minimum-release-age=(\d+)/.exec(commands.lockfile(before))?.[1]);
    expect(age).toBeGreaterThanOrEqual(3 * 86_400);
    expect(age).toBeLessThan(3 * 86_400 + 60);
    expect(commands.lockfile()).toBe("bun install --lockfile-only --ignore-scripts --no-progress");
    expect(commands.install).toBe("bun install --frozen-lockfile --no-progress");
    expect(managerCommands({ ...manager, lockfile: undefined }).install).toBe(
      "bun install --no-progress",
    );
  });

  it("find bun on the PATH and in the sandbox, or say where it is missing", async () => {
    const check = (path: string, launcher = sandbox, bun?: string) =>
      missingTool({
        manager,
        tools: bun ? { bun } : {},
        env: { PATH: path },
        sandbox: launcher,
      });
    expect(await check(PATH)).toBeUndefined();
    expect(await check("/nonexistent/bin")).toBe(
      `this repository uses bun (bun.lock), but bun is not on the PATH (/nonexistent/bin); ${FIX}. Nothing was changed.`,
    );
    // A folder named bun is no program.
    expect(await check(PATH, sandbox, root)).toContain(
      `${root} does not exist or is not executable`,
    );
    // The host has it, but the sandbox hides where it is (as it hides patchwright's own folder).
    const hiding = await chooseSandbox({
      mode: "service",
      optOut: false,
      optOutName: "PATCHWRIGHT_UNSANDBOXED=1",
      path: PATH,
      home: process.env.HOME || homedir(),
      hidden: [dirname(dirname(dirname(BUN)))],
      env: {},
      cwd: process.cwd(),
      hostTrust: NO_HOST_TRUST,
    });
    expect(await check(PATH, hiding.launcher)).toBe(
      `this repository uses bun (bun.lock), but the sandbox its installs run in cannot see ${join(dirname(dirname(dirname(BUN))), ".bin", "bun")} (home folders and patchwright's own folder are hidden from it); ${FIX}. Nothing was changed.`,
    );
    // Unsandboxed, the host's PATH is all there is.
    expect(await check(PATH, unsandboxed)).toBeUndefined();
    const npm = { name: "npm", lockfile: undefined, evidence: "no lockfile" } as const;
    expect(await missingTool({ manager: npm, env: {}, sandbox })).toBeUndefined();
  }, 60_000);
});
