import { readFile, writeFile } from "node:fs/promises";
import type { CommandResult } from "../../kernel/run-command.js";
import { realPathInside } from "../../sandbox/host-files.js";
import type { Update } from "../update.js";
import { setCatalogSpec } from "./catalog-edit.js";
import { type LockedMismatch, lockedMismatches } from "./locked-check.js";
import { setDependencySpec } from "./package-json-edit.js";
import { forgetLocked, pinnedRanges, relockTargets } from "./relock.js";
import type { Relock } from "./types.js";
import { type ReleaseBytes, releaseSwaps, writeReleaseSwap } from "./yarn/release-file.js";

/**
 * Applying a set of updates to a checkout: rewrite the specs in package.json
 * (every workspace that declares them), then let npm itself resolve the
 * lockfile. Installing and verifying are separate steps, so the job can tell
 * "npm could not resolve this" from "the tests fail".
 */

/** Runs one shell command in the checkout and reports like the verify step. */
export type CommandRunner = (command: string) => Promise<CommandResult>;

export interface BumpOutcome {
  /** Files the bump changed: manifests and the lockfile. */
  files: string[];
  /** The lockfile step, when there is a lockfile. */
  lockfile?: CommandResult;
  /** Updates the lockfile step locked at another version than the plan's. */
  mismatched?: LockedMismatch[];
}

export interface ApplyBumpOptions {
  dir: string;
  updates: readonly Update[];
  lockfilePath: string | undefined;
  run: CommandRunner;
  /** Only versions published before this are chosen for what npm resolves anew (the cooldown). */
  before?: Date | undefined;
  /** The package manager's lockfile command (default: npm's, see lockfileCommand). */
  lockfileCommand?: LockfileCommand | undefined;
  /** A new release's file, for an update that replaces the one the project keeps (UpdateLocation.release). */
  releaseBytes?: ReleaseBytes | undefined;
}

/** The lockfile step for the edited manifests, re-resolving `relock`'s in-range updates too. */
export type LockfileCommand = (before?: Date, relock?: readonly Relock[]) => string;

export async function applyBump(options: ApplyBumpOptions): Promise<BumpOutcome> {
  const files = new Set<string>();
  const byManifest = manifestEdits(options.updates);
  const relock = relockTargets(options.updates);
  for (const [manifest, edits] of byManifest) {
    const path = await realPathInside(options.dir, manifest);
    await writeFile(path, editManifest(await readFile(path, "utf8"), edits));
    files.add(manifest);
  }
  for (const { update, swap } of releaseSwaps(options.updates)) {
    if (!options.releaseBytes) throw new Error(`no registry to fetch ${swap.file} from`);
    const bytes = await options.releaseBytes(update, swap);
    for (const path of await writeReleaseSwap(options.dir, swap, bytes)) files.add(path);
  }
  if (!options.lockfilePath) return { files: [...files] };

  const command = options.lockfileCommand ?? lockfileCommand;
  const lockPath = await realPathInside(options.dir, options.lockfilePath);
  const forgotten = forgetLocked(options.lockfilePath, await readFile(lockPath, "utf8"), relock);
  if (forgotten !== undefined) await writeFile(lockPath, forgotten);
  // A lockfile step never changes a range: what a tool rewrites in package.json (yarn 4 reformats it) is put back.
  const manifests = await readManifests(options.dir, options.updates, options.lockfilePath);
  const pins = pinnedRanges(options.lockfilePath, relock);
  let before = options.before;
  let lockfile: CommandResult;
  try {
    // bun has no way to lock a given version inside a range: it locks the range pinned (relock.ts).
    for (const [manifest, edits] of pins) {
      const path = await realPathInside(options.dir, manifest);
      await writeFile(path, editManifest(await readFile(path, "utf8"), edits));
    }
    lockfile = await options.run(command(before, relock));
    // npm refuses some existing locks under --before (a version the repository
    // already pinned is younger than the cutoff); the bump itself is still sound.
    if (!lockfile.passed && before) {
      const again = command(undefined, relock);
      if (again !== command(before, relock)) {
        before = undefined;
        lockfile = await options.run(again);
      }
    }
  } finally {
    await restoreManifests(manifests);
  }
  if (lockfile.passed && pins.size > 0) {
    // The ranges are back: the tool records them and keeps the pinned versions, which they allow.
    const settle = await options.run(command(before, []));
    lockfile = {
      ...settle,
      command: `${settle.command} (twice: the in-range versions pinned, then the ranges restored)`,
      durationMs: lockfile.durationMs + settle.durationMs,
    };
  }
  files.add(options.lockfilePath);
  if (!lockfile.passed) return { files: [...files], lockfile };
  const lockText = await readFile(lockPath, "utf8");
  const mismatched = lockedMismatches(options.lockfilePath, lockText, options.updates);
  return mismatched.length > 0
    ? { files: [...files], lockfile, mismatched }
    : { files: [...files], lockfile };
}

export interface ManifestEdit {
  section: string;
  name: string;
  spec: string;
  /** A pnpm catalog's entry, the manifest being pnpm-workspace.yaml (UpdateLocation.catalog). */
  catalog?: string | undefined;
}

/** The spec rewrites per manifest path. */
export function manifestEdits(updates: readonly Update[]): Map<string, ManifestEdit[]> {
  const byManifest = new Map<string, ManifestEdit[]>();
  for (const update of updates) {
    for (const location of update.locations) {
      if (location.newSpec === null) continue;
      const edits = byManifest.get(location.manifest) ?? [];
      edits.push(editOf(update, location, location.newSpec));
      byManifest.set(location.manifest, edits);
    }
  }
  return byManifest;
}

/** The edit that writes `spec` at `location`. */
export function editOf(
  update: Pick<Update, "name">,
  location: Update["locations"][number],
  spec: string,
): ManifestEdit {
  return {
    section: location.section,
    name: update.name,
    spec,
    ...(location.catalog !== undefined ? { catalog: location.catalog } : {}),
  };
}

export function editManifest(text: string, edits: readonly ManifestEdit[]): string {
  return edits.reduce(
    (out, edit) =>
      edit.catalog !== undefined
        ? setCatalogSpec(out, edit.catalog, edit.name, edit.spec)
        : setDependencySpec(out, edit.section, edit.name, edit.spec),
    text,
  );
}

/**
 * `npm install --package-lock-only`: npm's own resolver updates the lockfile
 * without running any package's scripts; `--before` keeps packages resolved
 * anew (new transitive dependencies too) inside the cooldown. The registry
 * comes through the environment (see registryEnv), so a URL with
 * credentials never shows in a command line, a log or a pull request.
 */
function lockfileCommand(before?: Date): string {
  const base = "npm install --package-lock-only --ignore-scripts --no-audit --no-fund";
  return before ? `${base} --before=${before.toISOString()}` : base;
}

/** Every manifest the updates name, as the bump left it (a transitive fix names the lockfile itself). */
async function readManifests(
  dir: string,
  updates: readonly Update[],
  lockfilePath: string,
): Promise<Map<string, string>> {
  const paths = new Set(
    updates.flatMap((u) => u.locations.map((l) => l.manifest)).filter((p) => p !== lockfilePath),
  );
  const out = new Map<string, string>();
  for (const manifest of paths) {
    const path = await realPathInside(dir, manifest);
    out.set(path, await readFile(path, "utf8"));
  }
  return out;
}

async function restoreManifests(manifests: Map<string, string>): Promise<void> {
  for (const [path, text] of manifests) {
    if ((await readFile(path, "utf8").catch(() => undefined)) !== text) await writeFile(path, text);
  }
}
