import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  detectPackageManager,
  lockfileManager,
  managerCommands,
  PACKAGE_MANAGERS,
  packageManager,
} from "../../../src/deps/managers/index.js";
import { projectTools } from "../../../src/deps/managers/project-tools.js";
import type { ManagerName, ManagerTools } from "../../../src/deps/managers/types.js";

/**
 * The index of package managers: every one it lists keeps the interface's
 * promises, and detection finds each from its lockfile and from
 * package.json's `packageManager`. A manager dropped from the index, or a
 * name added without its case here, fails this file.
 */

const CASES: Record<ManagerName, { lockfile: string; text: string; pin: string }> = {
  npm: { lockfile: "package-lock.json", text: '{ "lockfileVersion": 3 }\n', pin: "npm@11.0.0" },
  pnpm: { lockfile: "pnpm-lock.yaml", text: "lockfileVersion: '9.0'\n", pin: "pnpm@10.12.1" },
  "yarn-classic": { lockfile: "yarn.lock", text: "# yarn lockfile v1\n\n", pin: "yarn@1.22.22" },
  "yarn-berry": {
    lockfile: "yarn.lock",
    text: "__metadata:\n  version: 8\n  cacheKey: 10\n",
    pin: "yarn@4.5.0",
  },
  bun: { lockfile: "bun.lock", text: '{\n  "lockfileVersion": 1,\n}\n', pin: "bun@1.2.0" },
};
const NAMES = Object.keys(CASES) as ManagerName[];

let root: string;
let count = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-managers-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(root, `p${count++}-`));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe("the package manager index", () => {
  it("lists every manager once, each under its own name", () => {
    expect(PACKAGE_MANAGERS.map((m) => m.name).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) expect(packageManager(name).name).toBe(name);
  });

  it.each(NAMES)("%s keeps the interface's promises", (name) => {
    const manager = packageManager(name);
    const { lockfile, text, pin } = CASES[name];
    expect(manager.label).toMatch(/^[a-z]+$/);
    expect(manager.lockfiles).toContain(lockfile);
    expect(manager.releasePackage(pin.slice(pin.indexOf("@") + 1))).toMatch(/\S/);
    expect(manager.peerOutcome).toMatch(/\S/);
    expect(lockfileManager(lockfile, text)).toBe(manager);
    const reader = manager.readLockfile(text);
    expect(reader.versionOf("", "absent", "^1.0.0")).toBeUndefined();
    expect(reader.peerDeclarers()).toBeInstanceOf(Map);
    for (const hasLock of [true, false]) {
      const detected = { name, lockfile: hasLock ? lockfile : undefined, evidence: "test" };
      const commands = manager.commands(detected, {});
      for (const command of [
        commands.lockfile(),
        commands.lockfile(new Date(Date.now() - 86_400_000)),
        commands.install,
        commands.reinstall,
        commands.test,
      ])
        expect(command).toMatch(/\S/);
      expect(commands.registryEnv("http://127.0.0.1:4873/")).not.toEqual({});
      expect(commands.cacheEnv("/cache")).not.toEqual({});
    }
  });

  it("gives pnpm its registry and store as every pnpm reads them", () => {
    const pnpm = packageManager("pnpm").commands(
      { name: "pnpm", lockfile: "pnpm-lock.yaml", evidence: "test" },
      {},
    );
    // pnpm 11 and later read pnpm_config_* only (checked with pnpm 11.18 and 12.24: `pnpm store
    // path` ignores npm_config_store_dir); pnpm 10 and earlier read npm_config_* only.
    expect(pnpm.cacheEnv("/w/c")).toEqual({
      npm_config_store_dir: "/w/c",
      npm_config_cache_dir: "/w/c",
      pnpm_config_store_dir: "/w/c",
      pnpm_config_cache_dir: "/w/c",
    });
    expect(pnpm.registryEnv("https://npm.corp.example/")).toEqual({
      npm_config_registry: "https://npm.corp.example/",
      pnpm_config_registry: "https://npm.corp.example/",
    });
  });

  it("locks a pnpm workspace before it relocks a project's in-range updates, as pnpm 12 needs", () => {
    const pnpm = packageManager("pnpm").commands(
      { name: "pnpm", lockfile: "pnpm-lock.yaml", evidence: "test" },
      { pnpm: "pnpm" },
    );
    const relock = [
      { name: "a", version: "1.2.0", dirs: ["packages/w"], specs: ["1.x"], locations: [] },
    ];
    // pnpm 12's filtered update alone keeps another member's old range in the lockfile (pnpm/index.ts).
    expect(pnpm.lockfile(undefined, relock)).toBe(
      "pnpm install --lockfile-only --ignore-scripts && pnpm update --filter '{./packages/w}' a@1.2.0 --no-save --lockfile-only --ignore-scripts",
    );
  });

  it.each(NAMES)("detects %s from its lockfile", async (name) => {
    const { lockfile, text } = CASES[name];
    const dir = await project({ "package.json": "{}", [lockfile]: text });
    expect(await detectPackageManager(dir, {})).toEqual({
      name,
      lockfile,
      evidence: lockfile,
    });
  });

  it.each(NAMES)("detects %s from package.json's packageManager", async (name) => {
    const { pin } = CASES[name];
    const manifest = { packageManager: pin };
    const dir = await project({ "package.json": JSON.stringify(manifest) });
    expect(await detectPackageManager(dir, manifest)).toEqual({
      name,
      lockfile: undefined,
      evidence: `package.json "packageManager": "${pin}"`,
      pinned: pin,
    });
  });

  it("names other tools' lockfiles beside the one it detects, not a second of its own", async () => {
    // zustand: a package-lock.json that stopped moving beside pnpm's, packageManager pnpm.
    const manifest = { packageManager: "pnpm@11.3.0" };
    const files = {
      "package.json": JSON.stringify(manifest),
      "pnpm-lock.yaml": CASES.pnpm.text,
      "package-lock.json": CASES.npm.text,
    };
    expect(await detectPackageManager(await project(files), manifest)).toEqual({
      name: "pnpm",
      lockfile: "pnpm-lock.yaml",
      evidence: 'package.json "packageManager": "pnpm@11.3.0"',
      pinned: "pnpm@11.3.0",
      others: ["package-lock.json"],
    });
    // Without the field the first lockfile in the index's order decides, as before.
    const { "package.json": _, ...locks } = files;
    expect(
      await detectPackageManager(await project({ "package.json": "{}", ...locks }), {}),
    ).toEqual({
      name: "npm",
      lockfile: "package-lock.json",
      evidence: "package-lock.json",
      others: ["pnpm-lock.yaml"],
    });
    // bun's text lockfile beside its older binary one is bun's own pair.
    const bun = { "package.json": "{}", "bun.lock": CASES.bun.text, "bun.lockb": "\0" };
    expect(await detectPackageManager(await project(bun), {})).not.toHaveProperty("others");
  });

  it("takes npm when nothing says otherwise", async () => {
    const dir = await project({ "package.json": "{}" });
    expect(await detectPackageManager(dir, {})).toEqual({
      name: "npm",
      lockfile: undefined,
      evidence: "no lockfile",
    });
  });
});

describe("a release file the project keeps (yarn's yarnPath)", () => {
  const lock = "__metadata:\n  version: 8\n";
  it("is found from .yarnrc.yml, or yarn 1's .yarnrc, when it is a file inside the project", async () => {
    const berry = await project({
      "yarn.lock": lock,
      ".yarnrc.yml": "yarnPath: ./.yarn/releases/yarn-4.4.1.cjs\n",
      ".yarn/releases/yarn-4.4.1.cjs": "// yarn\n",
    });
    const detected = await detectPackageManager(berry, { packageManager: "yarn@4.4.1" });
    expect(detected.release).toBe(".yarn/releases/yarn-4.4.1.cjs");
    const commands = managerCommands(detected);
    expect(commands.install).toBe("node .yarn/releases/yarn-4.4.1.cjs install --immutable");
    // Nothing is fetched, so corepack keeps no home.
    expect(commands.cacheEnv("/w/c")).not.toHaveProperty("COREPACK_HOME");

    const classic = await project({
      "yarn.lock": "# yarn lockfile v1\n\n",
      ".yarnrc": 'yarn-path ".yarn/releases/yarn-1.22.22.js"\n',
      ".yarn/releases/yarn-1.22.22.js": "// yarn\n",
    });
    expect((await detectPackageManager(classic, {})).release).toBe(
      ".yarn/releases/yarn-1.22.22.js",
    );
  });

  it("is found for the job's commands when package.json starts with a byte order mark", async () => {
    const dir = await project({
      "package.json": '\uFEFF{ "packageManager": "yarn@4.4.1" }\n',
      "yarn.lock": lock,
      ".yarnrc.yml": "yarnPath: ./.yarn/releases/yarn-4.4.1.cjs\n",
      ".yarn/releases/yarn-4.4.1.cjs": "// yarn\n",
    });
    const tools = await projectTools(dir, { PATH: "/nonexistent" });
    expect(tools?.label).toBe("yarn from .yarn/releases/yarn-4.4.1.cjs");
  });

  it("is not taken when it is missing, absolute, or a link out of the project", async () => {
    const outside = await project({ "yarn.cjs": "// yarn\n" });
    for (const [yarnPath, extra] of [
      [".yarn/releases/yarn-4.4.1.cjs", {}],
      [join(outside, "yarn.cjs"), {}],
      ["link.cjs", { link: join(outside, "yarn.cjs") }],
    ] as const) {
      const dir = await project({ "yarn.lock": lock, ".yarnrc.yml": `yarnPath: ${yarnPath}\n` });
      if ("link" in extra) await symlink(extra.link, join(dir, "link.cjs"));
      const detected = await detectPackageManager(dir, { packageManager: "yarn@4.4.1" });
      expect(detected.release, yarnPath).toBeUndefined();
      expect(managerCommands(detected).install, yarnPath).toMatch(/^corepack yarn /);
    }
  });
});

describe("managerCommands", () => {
  it("shims the tool's name for scripts that call it, unless the PATH's own tool is the one run", () => {
    const of = (name: ManagerName, extra: { release?: string } = {}, tools?: ManagerTools) =>
      managerCommands({ name, evidence: "test", lockfile: undefined, ...extra }, tools).shims("/w");
    expect(of("pnpm")).toEqual({ pnpm: "corepack pnpm" });
    expect(of("yarn-berry")).toEqual({ yarn: "corepack yarn" });
    // By its full path in the checkout: a script may call yarn from a workspace's folder.
    expect(of("yarn-berry", { release: ".yarn/releases/yarn-4.4.1.cjs" })).toEqual({
      yarn: "node /w/.yarn/releases/yarn-4.4.1.cjs",
    });
    expect(of("pnpm", {}, { pnpm: "/opt/pnpm/bin/pnpm" })).toEqual({ pnpm: "/opt/pnpm/bin/pnpm" });
    // npm comes with Node, bun from the PATH: a shim calling them by name would call itself.
    expect(of("npm")).toEqual({});
    expect(of("bun")).toEqual({});
  });

  it("has corepack take yarn 2+ from the public npm registry the installs use, unless told otherwise", () => {
    const yarn4 = { name: "yarn-berry" as const, evidence: "test", lockfile: undefined };
    const npmjs = "https://registry.npmjs.org/";
    expect(managerCommands(yarn4).registryEnv(npmjs)).toMatchObject({
      COREPACK_NPM_REGISTRY: "https://registry.npmjs.org",
    });
    // The operator's mirror, a private registry (corepack would not have its credentials), a tool not
    // started by corepack: left alone.
    const mirror = { COREPACK_NPM_REGISTRY: "https://npm.corp.example" };
    expect(managerCommands(yarn4).registryEnv(npmjs, mirror)).not.toHaveProperty(
      "COREPACK_NPM_REGISTRY",
    );
    expect(managerCommands(yarn4).registryEnv("https://npm.corp.example/")).not.toHaveProperty(
      "COREPACK_NPM_REGISTRY",
    );
    expect(
      managerCommands({ ...yarn4, release: ".yarn/releases/yarn-4.4.1.cjs" }).registryEnv(npmjs),
    ).not.toHaveProperty("COREPACK_NPM_REGISTRY");
    for (const name of ["npm", "bun"] as const)
      expect(
        managerCommands({ name, evidence: "test", lockfile: undefined }).registryEnv(npmjs),
        name,
      ).not.toHaveProperty("COREPACK_NPM_REGISTRY");
  });

  it("keeps corepack's home in the tool's cache, so the pinned release is fetched once per job, not per command", () => {
    for (const name of ["pnpm", "yarn-berry", "yarn-classic"] as const) {
      const commands = managerCommands({ name, evidence: "test", lockfile: undefined });
      expect(commands.install.startsWith("corepack "), name).toBe(true);
      expect(commands.cacheEnv("/w/.patchwright-pm-cache").COREPACK_HOME, name).toBe(
        "/w/.patchwright-pm-cache/corepack",
      );
      // Verify, which has no network, starts the release from there too.
      expect(commands.launchEnv("/w/.patchwright-pm-cache"), name).toEqual({
        COREPACK_HOME: "/w/.patchwright-pm-cache/corepack",
      });
    }
    // A tool started otherwise (an operator's binary, npm with Node, bun from the PATH) has no such home.
    const own = managerCommands(
      { name: "pnpm", evidence: "test", lockfile: undefined },
      { pnpm: "/opt/pnpm" },
    );
    expect(own.cacheEnv("/w/c")).not.toHaveProperty("COREPACK_HOME");
    expect(own.launchEnv("/w/c")).toEqual({});
    for (const name of ["npm", "bun"] as const)
      expect(
        managerCommands({ name, evidence: "test", lockfile: undefined }).cacheEnv("/w/c"),
        name,
      ).not.toHaveProperty("COREPACK_HOME");
  });
});
