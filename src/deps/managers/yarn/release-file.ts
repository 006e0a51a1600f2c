import { createHash } from "node:crypto";
import { chmod, stat } from "node:fs/promises";
import { isAbsolute, normalize } from "node:path";
import { parse as parseYaml } from "yaml";
import {
  readWorkspaceText,
  realPathInside,
  writeWorkspaceFile,
} from "../../../sandbox/host-files.js";
import type { RegistryClient } from "../../registry/registry.js";
import { tarballFile } from "../../registry/tarball.js";
import type { ReleaseSwap, Update } from "../../update.js";
import { setYamlString } from "../catalog-edit.js";

/**
 * The yarn release a project keeps in its repository (`.yarnrc.yml`'s
 * `yarnPath`, what `yarn set version` writes and any yarn hands over to),
 * and its update. A new release replaces the file as `yarn set version`
 * does (read in yarn 4.13's bundle): `.yarn/releases/yarn-<version>.cjs`,
 * yarnPath pointed at it, the old file in `.yarn/releases` removed. Its
 * bytes are `bin/yarn.js` of `@yarnpkg/cli-dist` from the project's
 * registry (the file repo.yarnpkg.com serves, byte for byte; a company
 * network mirrors the registry, rarely repo.yarnpkg.com), checked against
 * the registry's integrity.
 *
 * During the job's tries the old file stays: the job's commands start yarn
 * by it (DetectedManager.release), and yarn hands over to the release
 * yarnPath names, the new one. Only the commit removes it.
 */

const SETTINGS = ".yarnrc.yml";
const BUNDLE = { package: "@yarnpkg/cli-dist", file: "bin/yarn.js" };

/** `.yarnrc.yml`'s `yarnPath`, as written. */
export async function yarnPathSetting(dir: string): Promise<string | undefined> {
  const settings = await readWorkspaceText(dir, SETTINGS).catch(() => undefined);
  try {
    const path =
      settings === undefined
        ? undefined
        : (parseYaml(settings) as { yarnPath?: unknown } | null)?.yarnPath;
    return typeof path === "string" ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The release file the project keeps, which any yarn hands over to:
 * `.yarnrc.yml`'s `yarnPath` (yarn 2+, and yarn 1.22 reads it too), else
 * yarn 1's `.yarnrc` `yarn-path`. Only a file inside the project that is
 * there (yarn refuses to start on a missing one).
 */
export async function yarnReleaseFile(dir: string): Promise<string | undefined> {
  let path = await yarnPathSetting(dir);
  if (path === undefined) {
    const classic = await readWorkspaceText(dir, ".yarnrc").catch(() => undefined);
    path = classic ? /^\s*yarn-path\s+"?([^"\n]+?)"?\s*$/m.exec(classic)?.[1] : undefined;
  }
  if (path === undefined || path === "" || isAbsolute(path)) return undefined;
  try {
    const real = await realPathInside(dir, path);
    return (await stat(real)).isFile() ? normalize(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What updating package.json's `packageManager` to yarn `to` needs when
 * `.yarnrc.yml` names a release file: that file replaced (`swap`), or, for
 * a file the job cannot replace (outside the project, missing, a yarn 1
 * release), why the update is only listed (`held`). Undefined: no yarnPath,
 * the field is the whole edit.
 */
export async function yarnReleaseSwap(
  dir: string,
  to: string,
): Promise<{ swap: ReleaseSwap } | { held: string } | undefined> {
  const written = await yarnPathSetting(dir);
  if (written === undefined) return undefined;
  const current = await yarnReleaseFile(dir);
  if (current === undefined || /^[01]\./.test(to)) {
    return {
      held: `.yarnrc.yml's yarnPath runs ${written} whatever the field says: run \`yarn set version ${to}\`, which replaces both`,
    };
  }
  const file = `.yarn/releases/yarn-${to}.cjs`;
  const swap: ReleaseSwap = { file, settings: SETTINGS, from: BUNDLE };
  // yarn set version empties .yarn/releases; a release kept elsewhere stays where it is.
  if (current.startsWith(".yarn/releases/") && current !== file) swap.replaces = current;
  return { swap };
}

/** The updates' release swaps (one at most: the `packageManager` field's). */
export function releaseSwaps(
  updates: readonly Update[],
): Array<{ update: Update; swap: ReleaseSwap }> {
  return updates.flatMap((update) =>
    update.locations.flatMap((l) => (l.release ? [{ update, swap: l.release }] : [])),
  );
}

/** Every file a swap touches, for reading them as they were before the bump. */
export function swapPaths(updates: readonly Update[]): string[] {
  return releaseSwaps(updates).flatMap(({ swap }) => [
    swap.file,
    swap.settings,
    ...(swap.replaces ? [swap.replaces] : []),
  ]);
}

/** A release's bytes, from the registry; what the job's bump is given to write. */
export type ReleaseBytes = (update: Update, swap: ReleaseSwap) => Promise<Buffer>;

/**
 * A job's ReleaseBytes: each release fetched once (every try of a group,
 * and every group, writes the same file), a failed fetch tried again.
 */
export function registryReleaseBytes(
  registry: Pick<RegistryClient, "packument" | "tarball">,
  signal?: AbortSignal,
): ReleaseBytes {
  const fetched = new Map<string, Promise<Buffer>>();
  return (update, swap) => {
    const key = `${swap.from.package}@${update.to}:${swap.from.file}`;
    let bytes = fetched.get(key);
    if (!bytes) {
      bytes = releaseFromRegistry(registry, update, swap, signal);
      bytes.catch(() => fetched.delete(key));
      fetched.set(key, bytes);
    }
    return bytes;
  };
}

/**
 * `swap.from.file` of the release's registry tarball, once the tarball
 * matches the integrity the registry states for it: the file is committed
 * and then run by every yarn in the repository.
 */
export async function releaseFromRegistry(
  registry: Pick<RegistryClient, "packument" | "tarball">,
  update: Pick<Update, "to">,
  swap: ReleaseSwap,
  signal?: AbortSignal,
): Promise<Buffer> {
  const { package: name, file } = swap.from;
  const packument = await registry.packument(name, signal);
  const integrity = packument.versions[update.to]?.dist?.integrity;
  const [algorithm, expected] =
    /^(sha512|sha384|sha256)-(.+)$/.exec(integrity ?? "")?.slice(1) ?? [];
  if (!algorithm || !expected)
    throw new Error(`${name}@${update.to}: the registry states no sha-2 integrity for its tarball`);
  const tarball = await registry.tarball(name, update.to, signal);
  const actual = createHash(algorithm).update(tarball).digest("base64");
  if (actual !== expected)
    throw new Error(
      `${name}@${update.to}: the tarball does not match the registry's integrity (${algorithm}-${actual})`,
    );
  const bytes = tarballFile(tarball, file);
  if (!bytes?.length) throw new Error(`${name}@${update.to}: its tarball has no ${file}`);
  return bytes;
}

/**
 * Writes the new release and points the settings at it, in the workspace;
 * the old file stays for the job's commands (see above). Returns the paths
 * written.
 */
export async function writeReleaseSwap(
  dir: string,
  swap: ReleaseSwap,
  bytes: Buffer,
): Promise<string[]> {
  const settings = await readWorkspaceText(dir, swap.settings);
  const mode = await releaseMode(dir, swap);
  await writeWorkspaceFile(dir, swap.file, bytes);
  await writeWorkspaceFile(dir, swap.settings, Buffer.from(pointedAt(settings, swap)));
  await chmod(await realPathInside(dir, swap.file), mode);
  return [swap.file, swap.settings];
}

/**
 * `write` (a passed try's files written back from memory), then each new
 * release given the old one's mode, read before the settings moved: the
 * commit takes a new file's mode from the workspace.
 */
export async function keepingReleaseModes(
  dir: string,
  updates: readonly Update[],
  write: () => Promise<void>,
): Promise<void> {
  const swaps = releaseSwaps(updates);
  const modes = await Promise.all(swaps.map(({ swap }) => releaseMode(dir, swap)));
  await write();
  for (const [i, { swap }] of swaps.entries())
    await chmod(await realPathInside(dir, swap.file), modes[i] ?? 0o755);
}

/**
 * The mode of the release the settings name before the swap (the one the
 * job's commands start; yarn writes 0755, some repositories keep 0644).
 */
async function releaseMode(dir: string, swap: ReleaseSwap): Promise<number> {
  const old = swap.replaces ?? (await yarnReleaseFile(dir));
  const info = old && old !== swap.file ? await stat(await realPathInside(dir, old)) : undefined;
  return info ? info.mode & 0o777 : 0o755;
}

/**
 * The files the bump's commit gives a swap: the settings edited from their
 * base text, the new release as the workspace has it, the old one removed.
 */
export function swapCommitFiles(
  swap: ReleaseSwap,
  base: ReadonlyMap<string, Buffer | null>,
  workspace: ReadonlyMap<string, Buffer | null>,
): Map<string, Buffer | null> {
  const settings = base.get(swap.settings);
  const out = new Map<string, Buffer | null>();
  if (settings) out.set(swap.settings, Buffer.from(pointedAt(settings.toString("utf8"), swap)));
  out.set(swap.file, workspace.get(swap.file) ?? null);
  if (swap.replaces) out.set(swap.replaces, null);
  return out;
}

/** The settings' text with `yarnPath` naming the new file, the rest as written. */
function pointedAt(settings: string, swap: ReleaseSwap): string {
  const edited = setYamlString(settings, ["yarnPath"], swap.file);
  if (edited === undefined)
    throw new Error(`${swap.settings} has no yarnPath to point at ${swap.file}`);
  return edited;
}
