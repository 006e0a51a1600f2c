import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * Which host paths a sandbox shows, and how. Everything starts invisible
 * (bubblewrap's root is an empty tmpfs); this lists what is put back:
 * system directories and toolchains read-only, the workspace writable, its
 * git metadata read-only on top, private HOME and /tmp. Pure but for the
 * file-system probes, so the rules are tested without starting a sandbox.
 */

export type Mount =
  | { kind: "ro" | "rw"; path: string }
  /** A host folder shown writable at another path. */
  | { kind: "bind"; source: string; path: string }
  | { kind: "symlink"; target: string; path: string }
  | { kind: "tmpfs" | "dir"; path: string }
  /** Hides a file by binding /dev/null over it: it reads as empty. */
  | { kind: "mask-file"; path: string };

/** Where the sandbox's private HOME is inside. */
export const SANDBOX_HOME = "/tmp/home";

/** Directories every program needs; /etc gets masks for what only root should read. */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];

/** Host files in /etc that hold credentials or keys, or environment an operator set for the host. */
const ETC_SECRETS = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/sudoers",
  "/etc/sudoers.d",
  "/etc/ssh",
  "/etc/ssl/private",
  "/etc/environment",
  "/etc/docker",
  "/etc/letsencrypt",
  "/etc/security/opasswd",
  "/etc/apt/auth.conf",
  "/etc/apt/auth.conf.d",
  "/etc/boto.cfg",
  "/etc/containers/auth.json",
];

/**
 * npm's global config (`<prefix>/etc/npmrc`, /etc/npmrc for a prefix of /)
 * often holds registry tokens, for every prefix a node may run from.
 */
function globalNpmrcs(prefixes: Iterable<string>): string[] {
  return [...new Set(["/", "/usr", "/usr/local", ...prefixes])].map((prefix) =>
    join(prefix, "etc", "npmrc"),
  );
}

/** Whether a path is inside the system folders every sandbox shows. */
export function inSystemDirs(path: string): boolean {
  return SYSTEM_DIRS.some((dir) => isInside(path, dir));
}

export interface MachineFacts {
  /** The host's PATH: toolchains outside the system directories are found through it. */
  path: string;
  /** Where the running node lives (process.execPath): tools need a node. */
  nodePath: string;
  /** Never visible, even inside a directory that is: the cache, the server's own files. */
  hidden: string[];
  /** The real HOME: never shown itself, nor a folder right under it (see toolchainRoot). */
  home: string;
  /** CA files and folders the host's settings name (checked to hold certificates only). */
  caPaths?: readonly string[] | undefined;
}

/** The mounts every sandbox on this machine shares. */
export function machineMounts(facts: MachineFacts): Mount[] {
  const mounts: Mount[] = [];
  for (const dir of SYSTEM_DIRS) {
    const info = lstatOrNull(dir);
    if (!info) continue;
    if (info.isSymbolicLink())
      mounts.push({ kind: "symlink", target: readlinkSync(dir), path: dir });
    else if (info.isDirectory()) mounts.push({ kind: "ro", path: dir });
  }
  const covered = inSystemDirs;
  const roots = new Set<string>();
  for (const entry of [...facts.path.split(delimiter), dirname(facts.nodePath)]) {
    if (!entry || !isAbsolute(entry) || covered(entry) || !isDir(entry)) continue;
    for (const root of toolchainRoots(resolve(entry), facts.home)) {
      // A hidden path inside a toolchain is masked below; a toolchain inside one is left out.
      const insideHidden = facts.hidden.some((h) => isInside(root, h));
      if (!insideHidden && !isInside(facts.home, root)) roots.add(root);
    }
  }
  for (const root of roots) mounts.push({ kind: "ro", path: root });
  for (const path of facts.caPaths ?? []) mounts.push({ kind: "ro", path });
  const prefixes = [dirname(dirname(facts.nodePath)), ...roots];
  mounts.push(...maskMounts([...ETC_SECRETS, ...globalNpmrcs(prefixes)], shownPaths(mounts)));
  return mounts;
}

/**
 * What a PATH entry needs shown so its tools run:
 * - `<prefix>/bin` -> `<prefix>` when the prefix holds a `lib` (node's npm,
 *   a JDK, a Python), so its tools find their own files. Never a home
 *   directory or a folder right under one (`~/.local`, `~/.cargo` hold
 *   credentials beside their binaries): there, the bin folder itself, and
 *   the packages of an npm prefix (`~/.npm-global/lib/node_modules`, where
 *   its bin folder's links point; not its `etc`, which holds npm's config).
 * - `<dir>/node_modules/.bin` -> `<dir>/node_modules`: its commands are
 *   scripts or links into the packages beside it (pnpm/action-setup puts
 *   `~/setup-pnpm/node_modules/.bin` on the runner's PATH, and its `pnpm`
 *   runs `../.pnpm/pnpm@…/node_modules/pnpm/bin/pnpm.cjs`).
 * - anything else: the entry itself.
 */
function toolchainRoots(entry: string, home: string): string[] {
  if (basename(entry) === ".bin" && basename(dirname(entry)) === "node_modules")
    return [dirname(entry)];
  if (!entry.endsWith(`${sep}bin`)) return [entry];
  const prefix = dirname(entry);
  const tooShallow = isInside(home, prefix) || dirname(prefix) === home;
  if (!tooShallow) return [isDir(join(prefix, "lib")) ? prefix : entry];
  const packages = join(prefix, "lib", "node_modules");
  return isDir(packages) ? [entry, packages] : [entry];
}

export interface WorkspaceMounts {
  workspace: string;
  /** Paths shown read-only on top of the workspace (its git metadata). */
  readOnly: readonly string[];
  hidden: readonly string[];
  /** The job's own folders outside the workspace (SandboxProfile.shared), writable. */
  shared?: readonly string[] | undefined;
  /** The host folder that is HOME inside (SandboxProfile.home); default an empty one in /tmp. */
  home?: string | undefined;
}

/** The mounts of one sandbox: the machine's, then private scratch, the workspace, its git metadata. */
export function sandboxMounts(machine: readonly Mount[], ws: WorkspaceMounts): Mount[] {
  const mounts: Mount[] = [
    { kind: "tmpfs", path: "/tmp" },
    ws.home
      ? { kind: "bind", source: ws.home, path: SANDBOX_HOME }
      : { kind: "dir", path: SANDBOX_HOME },
    { kind: "dir", path: "/var" },
    { kind: "tmpfs", path: "/var/tmp" },
    ...machine,
    { kind: "rw", path: ws.workspace },
    ...(ws.shared ?? []).map((path): Mount => ({ kind: "rw", path })),
  ];
  for (const path of ws.readOnly) {
    if (lstatOrNull(path)) mounts.push({ kind: "ro", path });
  }
  // A hidden path inside something shown (a cache under /usr, a key in /etc) is covered again.
  mounts.push(...maskMounts(ws.hidden, shownPaths(mounts)));
  return mounts;
}

function shownPaths(mounts: readonly Mount[]): string[] {
  return mounts.filter((m) => m.kind === "ro" || m.kind === "rw").map((m) => m.path);
}

/**
 * Covers each path wherever a shown folder makes it visible: its real path
 * (symlinks resolved) under the folder's real path, at the place inside the
 * sandbox that leads to it. So a symlinked key is covered at its target, and
 * a folder shown through a symlink still has its secrets covered. A mask is
 * never put through a symlink, whose target may not exist inside.
 */
function maskMounts(paths: readonly string[], shown: readonly string[]): Mount[] {
  const masks = new Map<string, Mount>();
  for (const path of paths) {
    const real = realpathOrNull(path);
    const info = real ? statOrNull(real) : null;
    if (!real || !info) continue;
    for (const dir of shown) {
      const realDir = realpathOrNull(dir);
      if (!realDir || real === realDir || !isInside(real, realDir)) continue;
      const inside = join(dir, relative(realDir, real));
      masks.set(inside, { kind: info.isDirectory() ? "tmpfs" : "mask-file", path: inside });
    }
  }
  return [...masks.values()];
}

export function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function statOrNull(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
