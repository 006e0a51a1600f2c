import type { LockedGraph, LockedPeers, LockReader } from "../types.js";

/**
 * npm's package-lock.json (and npm-shrinkwrap.json): lockfile v2 and v3's
 * `packages` by install path, v1's `dependencies` by name. npm looks in a
 * workspace's own node_modules first, then the root's, and so does this.
 */

interface Lockfile {
  lockfileVersion?: number;
  packages?: Record<
    string,
    {
      version?: string;
      resolved?: string;
      link?: boolean;
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      /** The registry package's name, when the folder's is an alias's. */
      name?: string;
      hasInstallScript?: boolean;
      inBundle?: boolean;
    }
  >;
  dependencies?: Record<string, { version?: string }>;
}

export function readNpmLockfile(text: string): LockReader {
  // A lockfile of `null` records nothing, as an empty one.
  const lockfile = (JSON.parse(text) ?? {}) as Lockfile;
  return {
    versionOf: (manifestDir, name) => lockedVersion(lockfile, manifestDir, name),
    linkedOf: (manifestDir, name) => lockedLink(lockfile, manifestDir, name),
    peerDeclarers: () => lockedPeerDeclarers(lockfile),
    lockedGraph: (direct) => lockedGraph(lockfile, direct),
  };
}

/** The version the lockfile installed for a dependency of the manifest in `manifestDir`. */
function lockedVersion(lockfile: Lockfile, manifestDir: string, name: string): string | undefined {
  const packages = lockfile.packages;
  if (packages) {
    for (const key of installPaths(manifestDir, name)) {
      const entry = packages[key];
      if (entry?.version && !entry.link) return entry.version;
    }
    return undefined;
  }
  return lockfile.dependencies?.[name]?.version;
}

/** Whether npm's lockfile links a manifest's dependency to a workspace package (`link: true`). */
function lockedLink(lockfile: Lockfile, manifestDir: string, name: string): boolean | undefined {
  const packages = lockfile.packages;
  if (!packages) return undefined;
  for (const key of installPaths(manifestDir, name)) {
    const entry = packages[key];
    if (entry) return entry.link === true;
  }
  return undefined;
}

function installPaths(manifestDir: string, name: string): string[] {
  return manifestDir
    ? [`${manifestDir}/node_modules/${name}`, `node_modules/${name}`]
    : [`node_modules/${name}`];
}

/**
 * Packages npm's lockfile holds with the peers they declare (npm records
 * them there), the transitive ones included: a bump that breaks one of
 * their ranges breaks the tree as much as a direct dependency's would.
 */
function lockedPeerDeclarers(lockfile: Lockfile): Map<string, LockedPeers> {
  const out = new Map<string, { version: string; peers: Record<string, string> }>();
  for (const [key, entry] of Object.entries(lockfile.packages ?? {})) {
    const at = key.lastIndexOf("node_modules/");
    if (at < 0 || !entry.version || !entry.peerDependencies || entry.link) continue;
    const name = key.slice(at + "node_modules/".length);
    if (!out.has(name)) out.set(name, { version: entry.version, peers: entry.peerDependencies });
  }
  return out;
}

/** Every installed package the project does not name, and who asks for it with which range. */
function lockedGraph(lockfile: Lockfile, direct: ReadonlySet<string>): LockedGraph {
  const versions = new Map<string, Set<string>>();
  const wantedBy = new Map<string, Array<{ parent: string; range: string }>>();
  for (const [key, pkg] of Object.entries(lockfile.packages ?? {})) {
    const name = key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);
    const isRoot = key === "" || !key.includes("node_modules/");
    if (!isRoot && pkg.version && !pkg.link && !direct.has(name)) {
      const seen = versions.get(name) ?? new Set<string>();
      seen.add(pkg.version);
      versions.set(name, seen);
    }
    if (isRoot) continue;
    const parent = `${name}@${pkg.version ?? "?"}`;
    for (const deps of [pkg.dependencies, pkg.optionalDependencies, pkg.peerDependencies]) {
      for (const [child, range] of Object.entries(deps ?? {})) {
        if (direct.has(child)) continue;
        const list = wantedBy.get(child) ?? [];
        list.push({ parent, range });
        wantedBy.set(child, list);
      }
    }
  }
  return { versions, wantedBy };
}

/** The lockfile without the package's entries, anywhere in the tree: npm resolves what it lacks. */
export function forgetInPackageLock(text: string, names: readonly string[]): string {
  const lock = JSON.parse(text) as { packages?: Record<string, unknown> };
  if (!lock.packages) return text;
  for (const key of Object.keys(lock.packages)) {
    if (
      names.some((name) => key === `node_modules/${name}` || key.endsWith(`/node_modules/${name}`))
    ) {
      delete lock.packages[key];
    }
  }
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/**
 * The installed packages whose install scripts npm would run, by name and
 * version: entries marked `hasInstallScript`, not links (the project's own
 * workspaces) and not bundled (npm never runs a bundled package's scripts).
 * An alias is named by the package it installs, as npm's allowScripts does.
 */
export function scriptedPackages(text: string): Array<{ name: string; version: string }> {
  const lockfile = (JSON.parse(text) ?? {}) as Lockfile;
  const found = new Map<string, { name: string; version: string }>();
  for (const [key, entry] of Object.entries(lockfile.packages ?? {})) {
    const at = key.lastIndexOf("node_modules/");
    if (at < 0 || !entry.hasInstallScript || !entry.version || entry.link || entry.inBundle)
      continue;
    const name = entry.name ?? key.slice(at + "node_modules/".length);
    found.set(`${name}@${entry.version}`, { name, version: entry.version });
  }
  return [...found.values()];
}
