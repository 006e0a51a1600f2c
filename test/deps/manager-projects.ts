import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Model } from "../../src/agent/model/model.js";
import { createScriptedModel } from "../../src/agent/model/scripted.js";
import { defaultConfig } from "../../src/config/schema.js";
import type { ManagerTools } from "../../src/deps/managers/types.js";
import { runDepsJob } from "../../src/deps/run-deps-job.js";
import { type SandboxLauncher, unsandboxed } from "../../src/sandbox/sandbox.js";
import { createBareRepo } from "../helpers/git-repos.js";
import type { LocalRegistry } from "../helpers/npm-registry.js";

/**
 * Projects of each package manager, locked by the tool itself against the
 * test's verdaccio. The tools are this repository's devDependencies, passed
 * in where production uses corepack (which would download them) or bun from
 * the PATH.
 */

const run = promisify(execFile);
const bin = (path: string) => fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));

export const TOOLS: ManagerTools = {
  pnpm: bin(".bin/pnpm"),
  "yarn-classic": `node ${bin("yarn/bin/yarn.js")}`,
  "yarn-berry": `node ${bin("@yarnpkg/cli-dist/bin/yarn.js")}`,
  // The binary itself (bun's postinstall put it there), where production finds `bun` on the PATH.
  bun: bin("bun/bin/bun.exe"),
};

export type Manager = keyof ManagerTools | "npm";

export const LOCKFILES: Record<Manager, string> = {
  npm: "package-lock.json",
  pnpm: "pnpm-lock.yaml",
  "yarn-classic": "yarn.lock",
  "yarn-berry": "yarn.lock",
  bun: "bun.lock",
};

export interface ProjectWorld {
  registry: LocalRegistry;
  /** Where the projects are made. */
  root: string;
  /** The tools' environment (HOME, git identity). */
  env: Record<string, string>;
}

/**
 * A project at fx-greet 1.0.0 and fx-util 1.2.0 by default (exact, so the
 * lock is at the old versions), locked by its tool with what the registry
 * holds now: its files, the lockfile included. With `member` (a folder such
 * as "packages/x"), the root is a workspace and the member declares them.
 * `extra` files are written before the lock (a pnpm-workspace.yaml; a
 * .yarnrc.yml's lines are added to the one yarn 4 gets here).
 */
export async function lockedProject(
  world: ProjectWorld,
  manager: Manager,
  pin: string,
  dependencies: Record<string, string> = { "fx-greet": "1.0.0", "fx-util": "1.2.0" },
  member?: string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  // Exact versions and nothing else: the lock names only those releases,
  // which the registry keeps as published, so the same call gives the same
  // files (several tests of a file start from the default project; each
  // lock is a real install, 0.5-0.8 s of CPU). A range could lock a release
  // published since.
  const exact = Object.values(dependencies).every((spec) => EXACT.test(spec));
  if (!exact || Object.keys(extra).length > 0)
    return lockProject(world, manager, pin, dependencies, member, extra);
  const key = JSON.stringify([world.root, world.registry.url, manager, pin, dependencies, member]);
  let locked = locks.get(key);
  if (!locked) {
    locked = lockProject(world, manager, pin, dependencies, member, extra);
    locks.set(key, locked);
    // A failed lock is not kept: the next caller sees the failure for itself.
    locked.catch(() => locks.delete(key));
  }
  return { ...(await locked) };
}

const EXACT = /^\d+\.\d+\.\d+$/;
const locks = new Map<string, Promise<Record<string, string>>>();

async function lockProject(
  world: ProjectWorld,
  manager: Manager,
  pin: string,
  dependencies: Record<string, string>,
  member: string | undefined,
  extra: Record<string, string>,
): Promise<Record<string, string>> {
  const { registry, root, env } = world;
  const dir = join(
    root,
    `make-${manager}-${Object.values(dependencies).join("-")}${member ? `-${member.replaceAll("/", "-")}` : ""}`,
  );
  await mkdir(dir, { recursive: true });
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const base: Record<string, string> = {
    "package.json": json({
      name: `app-${manager}`,
      version: "1.0.0",
      private: true,
      packageManager: pin,
      scripts: { test: "node test.js" },
      ...(member ? { workspaces: [member] } : { dependencies }),
    }),
    ...(member
      ? { [`${member}/package.json`]: json({ name: "member", version: "1.0.0", dependencies }) }
      : {}),
    "test.js":
      'const { greet } = require("fx-greet");\nif (greet("x") !== "Hello, x!") process.exit(1);\nconsole.log("fx-util", require("fx-util"));\n',
    ".gitignore": "node_modules\n.yarn\n.pnp.*\n",
    // No audit, fund or update checks: the local registry is the only server npm may talk to.
    ".npmrc": `registry=${registry.url}\naudit=false\nfund=false\nupdate-notifier=false\n`,
  };
  const files: Record<string, string> = {
    ...base,
    ...extra,
    // Extra package.json fields (bun's catalogs) go into the one made here.
    ...(extra["package.json"]
      ? {
          "package.json": json({
            ...JSON.parse(base["package.json"] ?? "{}"),
            ...JSON.parse(extra["package.json"]),
          }),
        }
      : {}),
  };
  if (manager === "yarn-berry") {
    files[".yarnrc.yml"] = [
      "nodeLinker: node-modules",
      `npmRegistryServer: "${registry.url.replace(/\/$/, "")}"`,
      'unsafeHttpWhitelist: ["127.0.0.1"]',
      "enableTelemetry: false",
      "enableGlobalCache: false",
      "",
    ].join("\n");
    // Extra settings (a catalog) after the ones the tests need.
    files[".yarnrc.yml"] += extra[".yarnrc.yml"] ?? "";
  }
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  const tool = manager === "npm" ? "npm" : TOOLS[manager];
  const toolEnv = {
    ...env,
    npm_config_registry: registry.url,
    YARN_ENABLE_IMMUTABLE_INSTALLS: "false",
  };
  const noScripts = manager === "yarn-berry" ? "--mode=skip-build" : "--ignore-scripts";
  await run("bash", ["-c", `${tool} install ${noScripts}`], { cwd: dir, env: toolEnv }).catch(
    (error: { stdout?: string; stderr?: string }) => {
      throw new Error(`${tool} install failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
    },
  );
  const lockfile = LOCKFILES[manager];
  files[lockfile] = await readFile(join(dir, lockfile), "utf8");
  return files;
}

/**
 * A deps job on `files` pushed to a new bare repository `name`, with this
 * repository's tools and no agent: the package managers' own work,
 * unsandboxed. `options` gives other tools (none: production's launcher),
 * a sandbox and more of the host's environment.
 */
export async function toolDepsJob(
  world: ProjectWorld & { now: number },
  name: string,
  files: Record<string, string>,
  deps: Record<string, unknown>,
  options: {
    tools?: ManagerTools;
    sandbox?: SandboxLauncher;
    env?: Record<string, string>;
    /** The agent's model (default: one with nothing to say). */
    model?: () => Model;
  } = {},
) {
  const { root, env } = world;
  const { tools = TOOLS, sandbox = unsandboxed } = options;
  const repo = createBareRepo({ root, env, files, name });
  const result = await runDepsJob(
    {
      secrets: [],
      cacheDir: join(root, `cache-${name}`),
      sandbox,
      envSource: { ...env, PATH: process.env.PATH ?? "", ...options.env },
      clock: { now: () => world.now },
      createModel: options.model ?? (() => createScriptedModel([])),
      packageManagers: tools,
    },
    { owner: "o", repo: "r", cloneUrl: repo.url, config: { ...defaultConfig(), deps } },
  );
  return { repo, result };
}
