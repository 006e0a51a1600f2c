import { join } from "node:path";
import { readWorkspaceText } from "../../sandbox/host-files.js";
import { DEFAULT_REGISTRY } from "../registry/npmrc.js";
import { bun } from "./bun/index.js";
import { npm } from "./npm/index.js";
import { pnpm } from "./pnpm/index.js";
import { toolCommand } from "./tool-command.js";
import type {
  DetectedManager,
  ManagerCommands,
  ManagerName,
  ManagerTools,
  PackageManager,
} from "./types.js";
import { yarnBerry, yarnClassic } from "./yarn/index.js";

/**
 * Every package manager the bump job supports, and which one a project
 * uses: package.json's `packageManager` (which corepack honours) first,
 * else the first lockfile found in this list's order, else npm.
 */

export const PACKAGE_MANAGERS: readonly PackageManager[] = [npm, pnpm, yarnClassic, yarnBerry, bun];

/** The module for a detected (or planned) manager's name. */
export function packageManager(name: ManagerName): PackageManager {
  const found = PACKAGE_MANAGERS.find((m) => m.name === name);
  if (!found) throw new Error(`no package manager named ${name}`);
  return found;
}

export async function detectPackageManager(
  dir: string,
  manifest: Record<string, unknown>,
): Promise<DetectedManager> {
  const found: Array<{ file: string; text: string }> = [];
  for (const file of new Set(PACKAGE_MANAGERS.flatMap((m) => m.lockfiles))) {
    const text = await readWorkspaceText(dir, file).catch(() => undefined);
    if (text !== undefined) found.push({ file, text });
  }
  const lockOf = (manager: PackageManager) => found.find((f) => manager.lockfiles.includes(f.file));
  const othersThan = (manager: PackageManager) => {
    const others = found.map((f) => f.file).filter((file) => !manager.lockfiles.includes(file));
    return others.length > 0 ? { others } : {};
  };
  const pinned = typeof manifest.packageManager === "string" ? manifest.packageManager : undefined;
  if (pinned) {
    const [tool, version] = pinned.split("@");
    const named = PACKAGE_MANAGERS.find(
      (m) => m.tool === tool && m.claims({ version, lockText: lockOf(m)?.text }),
    );
    if (named) {
      return withRelease(dir, named, {
        name: named.name,
        lockfile: lockOf(named)?.file,
        evidence: `package.json "packageManager": "${pinned}"`,
        pinned,
        ...othersThan(named),
      });
    }
  }
  const first = found[0];
  const owner = first && lockfileManager(first.file, first.text);
  if (!first || !owner) return { name: npm.name, lockfile: undefined, evidence: "no lockfile" };
  return withRelease(dir, owner, {
    name: owner.name,
    lockfile: first.file,
    evidence: first.file,
    ...othersThan(owner),
  });
}

/** `detected` with its release file by its full path in the checkout at `root`. */
function rooted(detected: DetectedManager, root: string): DetectedManager {
  return detected.release ? { ...detected, release: join(root, detected.release) } : detected;
}

async function withRelease(
  dir: string,
  manager: PackageManager,
  detected: DetectedManager,
): Promise<DetectedManager> {
  const release = await manager.releaseFile?.(dir);
  return release ? { ...detected, release } : detected;
}

export interface PinnedRelease {
  tool: string;
  version: string;
  /** corepack's `+sha512.…`, when the field has one. */
  hash: string | undefined;
  manager: PackageManager;
  /** The registry package its releases are published as (yarn 1 and 2+ differ). */
  releasePackage: string;
}

/**
 * package.json's `packageManager` (`pnpm@10.12.1+sha512.…`), read: the
 * tool, its version and hash, and where its releases are. Undefined for
 * another value or a tool the bump job does not know. The first manager of
 * that tool: yarn 1 and 2+ name their release package by the version alike.
 */
export function pinnedRelease(value: unknown): PinnedRelease | undefined {
  const field = typeof value === "string" ? /^([a-z]+)@([^+\s]+)(\+\S+)?$/.exec(value) : null;
  const [, tool, version, hash] = field ?? [];
  const manager = PACKAGE_MANAGERS.find((m) => m.tool === tool);
  if (!tool || !version || !manager) return undefined;
  return { tool, version, hash, manager, releasePackage: manager.releasePackage(version) };
}

/** The major version of `tool` that package.json's `packageManager` pins (`pnpm@11.18.0` -> 11); undefined for another tool or none. */
export function pinnedMajor(packageManager: unknown, tool: string): number | undefined {
  const pinned = pinnedRelease(packageManager);
  const major = pinned?.tool === tool ? Number(pinned.version.split(".")[0]) : Number.NaN;
  return Number.isInteger(major) ? major : undefined;
}

/** The manager that writes a lockfile, by its name (and, for yarn.lock, its text). */
export function lockfileManager(lockfilePath: string, text?: string): PackageManager | undefined {
  const file = lockfilePath.slice(lockfilePath.lastIndexOf("/") + 1);
  return PACKAGE_MANAGERS.find((m) => m.lockfiles.includes(file) && m.claims({ lockText: text }));
}

/** The commands the bump job runs with a project's manager; `tools` replaces how the tool is started. */
export function managerCommands(detected: DetectedManager, tools?: ManagerTools): ManagerCommands {
  const manager = packageManager(detected.name);
  const command = toolCommand(manager, tools, detected);
  const commands = {
    ...manager.commands(detected, tools),
    launchEnv: () => ({}),
    // The PATH's own tool needs none (and a shim calling it by name would call itself).
    shims: (root: string) =>
      command === manager.tool
        ? {}
        : { [manager.tool]: toolCommand(manager, tools, rooted(detected, root)) },
  };
  if (!command.startsWith("corepack ")) return commands;
  // Each sandboxed command has a fresh HOME, where corepack would keep the
  // tool it fetched: it fetched the pinned release again for every command
  // (measured on the 2-core VM, pnpm 10.34.8: 1.7 s and 23 MB cold, 0.7 s
  // warm). Its home goes into the tool's cache in the worktree instead.
  const launchEnv = (dir: string) => ({ COREPACK_HOME: join(dir, "corepack") });
  return {
    ...commands,
    cacheEnv: (dir) => ({ ...commands.cacheEnv(dir), ...launchEnv(dir) }),
    launchEnv,
    registryEnv: (registry, env = {}) => ({
      ...commands.registryEnv(registry, env),
      ...corepackRegistryEnv(registry, env),
    }),
  };
}

/**
 * Unless COREPACK_NPM_REGISTRY is set, corepack fetches yarn 2+ from
 * repo.yarnpkg.com, a host a network that lets the npm registry through
 * may not reach (this VM's does not); set, it takes @yarnpkg/cli-dist from
 * the registry the installs use anyway (pnpm and yarn 1 come from there
 * either way). Only for the public registry: corepack reads no .npmrc, so
 * it would go to a private one without the credentials the project keeps
 * there. An operator's own setting (in `env`) stays.
 */
export function corepackRegistryEnv(
  registry: string,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return registry === DEFAULT_REGISTRY && !env.COREPACK_NPM_REGISTRY
    ? { COREPACK_NPM_REGISTRY: DEFAULT_REGISTRY.replace(/\/$/, "") }
    : {};
}
