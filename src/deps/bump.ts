import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { VerifyResult } from "../job/verify.js";
import type { NpmConfig } from "./npmrc.js";
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
}

export interface ApplyBumpOptions {
  dir: string;
  updates: readonly Update[];
  lockfilePath: string | undefined;
  npm: NpmConfig;
  run: CommandRunner;
  /** Only versions published before this are chosen for what npm resolves anew (the cooldown). */
  before?: Date | undefined;
}

export async function applyBump(options: ApplyBumpOptions): Promise<BumpOutcome> {
  const files = new Set<string>();
  const byManifest = manifestEdits(options.updates);
  const relockOnly = options.updates
    .filter((u) => u.locations.some((l) => l.newSpec === null))
    .map((u) => u.name);
  for (const [manifest, edits] of byManifest) {
    const path = join(options.dir, manifest);
    await writeFile(path, editManifest(await readFile(path, "utf8"), edits));
    files.add(manifest);
  }
  if (!options.lockfilePath) return { files: [...files] };

  if (relockOnly.length > 0)
    await forgetLocked(join(options.dir, options.lockfilePath), relockOnly);
  const lockfile = await options.run(lockfileCommand(options.npm, options.before));
  files.add(options.lockfilePath);
  return { files: [...files], lockfile };
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
 * anew (new transitive dependencies too) inside the cooldown.
 */
export function lockfileCommand(npm: NpmConfig, before?: Date): string {
  const args = [
    "npm install --package-lock-only --ignore-scripts --no-audit --no-fund",
    `--registry=${shellQuote(npm.registry)}`,
  ];
  if (before) args.push(`--before=${before.toISOString()}`);
  return args.join(" ");
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

export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}
