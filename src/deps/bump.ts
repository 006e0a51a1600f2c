import { readFile, writeFile } from "node:fs/promises";
import type { VerifyResult } from "../job/verify.js";
import { realPathInside } from "../sandbox/host-files.js";
import { type LockedMismatch, lockedMismatches } from "./locked-check.js";
import type { Update } from "./outdated.js";
import { setDependencySpec } from "./package-json-edit.js";

/**
 * Applying a set of updates to a checkout: rewrite the specs in package.json
 * (every workspace that declares them), then let npm itself resolve the
 * lockfile. Installing and verifying are separate steps, so the job can tell
 * "npm could not resolve this" from "the tests fail".
 */

/** Runs one shell command in the checkout and reports like the verify step. */
export type CommandRunner = (command: string) => Promise<VerifyResult>;

export interface BumpOutcome {
  /** Files the bump changed: manifests and the lockfile. */
  files: string[];
  /** The lockfile step, when there is a lockfile. */
  lockfile?: VerifyResult;
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
  lockfileCommand?: ((before?: Date) => string) | undefined;
}

export async function applyBump(options: ApplyBumpOptions): Promise<BumpOutcome> {
  const files = new Set<string>();
  const byManifest = manifestEdits(options.updates);
  const relockOnly = options.updates
    .filter((u) => u.locations.some((l) => l.newSpec === null))
    .map((u) => u.name);
  for (const [manifest, edits] of byManifest) {
    const path = await realPathInside(options.dir, manifest);
    await writeFile(path, editManifest(await readFile(path, "utf8"), edits));
    files.add(manifest);
  }
  if (!options.lockfilePath) return { files: [...files] };

  const command = options.lockfileCommand ?? lockfileCommand;
  // In-range updates are proposed for npm's lockfile only (see outdated.ts).
  if (relockOnly.length > 0 && options.lockfilePath.endsWith(".json"))
    await forgetLocked(await realPathInside(options.dir, options.lockfilePath), relockOnly);
  let lockfile = await options.run(command(options.before));
  // npm refuses some existing locks under --before (a version the repository
  // already pinned is younger than the cutoff); the bump itself is still sound.
  if (!lockfile.passed && options.before) {
    const again = command();
    if (again !== command(options.before)) lockfile = await options.run(again);
  }
  files.add(options.lockfilePath);
  if (!lockfile.passed) return { files: [...files], lockfile };
  const lockText = await readFile(await realPathInside(options.dir, options.lockfilePath), "utf8");
  const mismatched = lockedMismatches(options.lockfilePath, lockText, options.updates);
  return mismatched.length > 0
    ? { files: [...files], lockfile, mismatched }
    : { files: [...files], lockfile };
}

export interface ManifestEdit {
  section: string;
  name: string;
  spec: string;
}

/** The spec rewrites per manifest path. */
export function manifestEdits(updates: readonly Update[]): Map<string, ManifestEdit[]> {
  const byManifest = new Map<string, ManifestEdit[]>();
  for (const update of updates) {
    for (const location of update.locations) {
      if (location.newSpec === null) continue;
      const edits = byManifest.get(location.manifest) ?? [];
      edits.push({ section: location.section, name: update.name, spec: location.newSpec });
      byManifest.set(location.manifest, edits);
    }
  }
  return byManifest;
}

export function editManifest(text: string, edits: readonly ManifestEdit[]): string {
  return edits.reduce(
    (out, edit) => setDependencySpec(out, edit.section, edit.name, edit.spec),
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
export function lockfileCommand(before?: Date): string {
  const base = "npm install --package-lock-only --ignore-scripts --no-audit --no-fund";
  return before ? `${base} --before=${before.toISOString()}` : base;
}

/** Drops a package's lockfile entries so npm resolves it again within its (unchanged) range. */
async function forgetLocked(path: string, names: string[]): Promise<void> {
  const lock = JSON.parse(await readFile(path, "utf8")) as { packages?: Record<string, unknown> };
  if (!lock.packages) return;
  for (const key of Object.keys(lock.packages)) {
    if (
      names.some((name) => key === `node_modules/${name}` || key.endsWith(`/node_modules/${name}`))
    ) {
      delete lock.packages[key];
    }
  }
  await writeFile(path, `${JSON.stringify(lock, null, 2)}\n`);
}
