import { readWorkspaceText } from "../../sandbox/host-files.js";
import { pnpmRelockCommands, type Relock, yarnBerryRelockCommand } from "./relock.js";

/**
 * Which package manager a project uses, from package.json's `packageManager`
 * (which corepack honours) and its lockfile, and the commands the bump job
 * runs with it. The project's own tool writes its own lockfile: pnpm and
 * yarn (classic and berry) are run through corepack by default, so the
 * version the project pins is the one used; corepack does not manage bun,
 * so bun is the one on the PATH (the Docker image installs it in
 * /usr/local/bin). `tools` replaces these commands (a test's local
 * binaries, an operator's installed ones).
 */

export type ManagerName = "npm" | "pnpm" | "yarn-classic" | "yarn-berry" | "bun";

export interface PackageManager {
  name: ManagerName;
  /** The lockfile path, when there is one. */
  lockfile: string | undefined;
  /** What told us: `package.json "packageManager"` or the lockfile's name. */
  evidence: string;
  /** `pnpm@10.34.8` as package.json pins it. */
  pinned?: string;
}

/** How to start each tool; a command prefix, run by the shell in the sandbox. */
export type ManagerTools = Partial<Record<"pnpm" | "yarn-classic" | "yarn-berry" | "bun", string>>;

const DEFAULT_TOOLS: Required<ManagerTools> = {
  pnpm: "corepack pnpm",
  "yarn-classic": "corepack yarn",
  "yarn-berry": "corepack yarn",
  bun: "bun",
};

const LOCKFILES: Array<[string, ManagerName]> = [
  ["npm-shrinkwrap.json", "npm"],
  ["package-lock.json", "npm"],
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn-classic"],
  ["bun.lock", "bun"],
  ["bun.lockb", "bun"],
];

export async function detectPackageManager(
  dir: string,
  manifest: Record<string, unknown>,
): Promise<PackageManager> {
  const found: Array<{ file: string; name: ManagerName; text: string }> = [];
  for (const [file, name] of LOCKFILES) {
    const text = await readWorkspaceText(dir, file).catch(() => undefined);
    if (text !== undefined) found.push({ file, name, text });
  }
  const yarnFlavour = (text: string | undefined, version?: string): ManagerName =>
    (version && !version.startsWith("1.")) || text?.includes("__metadata:")
      ? "yarn-berry"
      : "yarn-classic";
  const pinned = typeof manifest.packageManager === "string" ? manifest.packageManager : undefined;
  if (pinned) {
    const [tool, version] = pinned.split("@");
    const named: ManagerName | undefined =
      tool === "yarn"
        ? yarnFlavour(found.find((f) => f.file === "yarn.lock")?.text, version)
        : tool === "pnpm" || tool === "npm" || tool === "bun"
          ? tool
          : undefined;
    if (named) {
      const lock = found.find(
        (f) => f.name === named || (named.startsWith("yarn") && f.file === "yarn.lock"),
      );
      return {
        name: named,
        lockfile: lock?.file,
        evidence: `package.json "packageManager": "${pinned}"`,
        pinned,
      };
    }
  }
  const first = found[0];
  if (!first) return { name: "npm", lockfile: undefined, evidence: "no lockfile" };
  const name = first.file === "yarn.lock" ? yarnFlavour(first.text) : first.name;
  return { name, lockfile: first.file, evidence: first.file };
}

/** The tool as a maintainer names it: "yarn" for yarn 1 and yarn 2+ alike. */
export function managerLabel(name: ManagerName): string {
  return name.startsWith("yarn") ? "yarn" : name;
}

/** The command that starts a project's tool: `tools`' own, else the default. */
export function toolCommand(name: Exclude<ManagerName, "npm">, tools: ManagerTools = {}): string {
  return tools[name] ?? DEFAULT_TOOLS[name];
}

export interface ManagerCommands {
  /**
   * Updates the lockfile for the edited manifests without running package
   * scripts, and moves `relock`'s in-range updates inside their ranges
   * (npm and yarn 1 get theirs dropped from the lockfile first, bun's are
   * pinned in package.json for this step and restored for a second; see relock.ts).
   */
  lockfile(before?: Date, relock?: readonly Relock[]): string;
  /** The first install of a job. */
  install: string;
  /** An install into a tree an earlier try or group left. */
  reinstall: string;
  /** `npm test`, `pnpm test`, `yarn test`, `bun run test`. */
  test: string;
  /** The environment that points the tool at the registry patchwright resolved. */
  registryEnv(registry: string): Record<string, string>;
  /** The environment that puts the tool's cache (or store) in `dir`. */
  cacheEnv(dir: string): Record<string, string>;
}

/**
 * The cutoff as an age in whole minutes (pnpm, yarn) or seconds (bun), for
 * the tools that take an age rather than a date. They compare it with their
 * own clock, so the real one is used here; rounding up keeps the cutoff at
 * least as strict.
 */
function ageMinutes(before: Date): number {
  return Math.max(1, Math.ceil((Date.now() - before.getTime()) / 60_000));
}

function ageSeconds(before: Date): number {
  return Math.max(1, Math.ceil((Date.now() - before.getTime()) / 1000));
}

export function managerCommands(
  manager: PackageManager,
  tools: ManagerTools = {},
): ManagerCommands {
  const hasLock = manager.lockfile !== undefined;
  if (manager.name === "pnpm") {
    const pnpm = toolCommand("pnpm", tools);
    return {
      // minimumReleaseAge (pnpm 10.16+): a range resolves to a version older than the cutoff.
      lockfile: (before, relock = []) => {
        const gate = before ? ` --config.minimum-release-age=${ageMinutes(before)}` : "";
        return [
          `${pnpm} install --lockfile-only --ignore-scripts${gate}`,
          ...pnpmRelockCommands(pnpm, relock, gate),
        ].join(" && ");
      },
      install: hasLock ? `${pnpm} install --frozen-lockfile` : `${pnpm} install`,
      reinstall: hasLock
        ? `${pnpm} install --frozen-lockfile --prefer-offline`
        : `${pnpm} install --prefer-offline`,
      test: `${pnpm} test`,
      registryEnv: (registry) => ({ npm_config_registry: registry }),
      cacheEnv: (dir) => ({ npm_config_store_dir: dir, npm_config_cache_dir: dir }),
    };
  }
  if (manager.name === "yarn-classic") {
    const yarn = toolCommand("yarn-classic", tools);
    return {
      // Yarn 1 has no lockfile-only mode: this installs too, without scripts. It
      // has no age gate either: the locked-version check (locked-check.ts) catches a range it resolves too new.
      lockfile: () => `${yarn} install --ignore-scripts --non-interactive --no-progress`,
      install: `${yarn} install --frozen-lockfile --non-interactive --no-progress`,
      reinstall: `${yarn} install --frozen-lockfile --non-interactive --no-progress --prefer-offline`,
      test: `${yarn} test`,
      registryEnv: (registry) => ({ npm_config_registry: registry, YARN_REGISTRY: registry }),
      cacheEnv: (dir) => ({ YARN_CACHE_FOLDER: dir }),
    };
  }
  if (manager.name === "yarn-berry") {
    const yarn = toolCommand("yarn-berry", tools);
    return {
      // npmMinimalAgeGate (yarn 4.10+), in minutes; the variable outranks .yarnrc.yml.
      lockfile: (before, relock = []) =>
        `${before ? `YARN_NPM_MINIMAL_AGE_GATE=${ageMinutes(before)} ` : ""}${relock.length > 0 ? yarnBerryRelockCommand(yarn, relock) : `${yarn} install --mode=update-lockfile`}`,
      install: `${yarn} install --immutable`,
      reinstall: `${yarn} install --immutable`,
      test: `${yarn} test`,
      registryEnv: (registry) => ({
        YARN_NPM_REGISTRY_SERVER: registry.replace(/\/$/, ""),
        // A loopback or company registry over plain http is the operator's choice in .npmrc.
        ...(registry.startsWith("http:")
          ? { YARN_UNSAFE_HTTP_WHITELIST: new URL(registry).hostname }
          : {}),
        YARN_ENABLE_TELEMETRY: "0",
        YARN_ENABLE_GLOBAL_CACHE: "false",
      }),
      cacheEnv: (dir) => ({ YARN_CACHE_FOLDER: dir }),
    };
  }
  if (manager.name === "bun") {
    const bun = toolCommand("bun", tools);
    return {
      // minimumReleaseAge (bun 1.3+), in seconds; the flag outranks bunfig.toml.
      lockfile: (before) =>
        `${bun} install --lockfile-only --ignore-scripts --no-progress${before ? ` --minimum-release-age=${ageSeconds(before)}` : ""}`,
      install: hasLock
        ? `${bun} install --frozen-lockfile --no-progress`
        : `${bun} install --no-progress`,
      reinstall: hasLock
        ? `${bun} install --frozen-lockfile --prefer-offline --no-progress`
        : `${bun} install --prefer-offline --no-progress`,
      // package.json's "test" script, as the other tools run it; `bun test` is bun's own runner.
      test: `${bun} run test`,
      // bun reads the project's .npmrc too (scoped registries, tokens); these set the default one.
      registryEnv: (registry) => ({ BUN_CONFIG_REGISTRY: registry, NPM_CONFIG_REGISTRY: registry }),
      cacheEnv: (dir) => ({ BUN_INSTALL_CACHE_DIR: dir }),
    };
  }
  // --prefer-offline: packuments an earlier group fetched in this job are fresh enough.
  const base =
    "npm install --package-lock-only --ignore-scripts --no-audit --no-fund --prefer-offline";
  return {
    lockfile: (before) => (before ? `${base} --before=${before.toISOString()}` : base),
    install: hasLock ? "npm ci" : "npm install --no-package-lock --no-audit --no-fund",
    reinstall: hasLock
      ? "npm install --prefer-offline --no-audit --no-fund"
      : "npm install --no-package-lock --prefer-offline --no-audit --no-fund",
    test: "npm test",
    registryEnv: (registry) => ({ npm_config_registry: registry }),
    cacheEnv: (dir) => ({ npm_config_cache: dir }),
  };
}
