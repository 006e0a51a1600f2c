import type { NetChange } from "../../agent/file-history.js";
import {
  type CreatedCommit,
  createCommits,
  type Identity,
  type TurnFile,
} from "../../git/commit/commits.js";
import { editManifest, manifestEdits } from "../managers/bump.js";
import { releaseSwaps, swapCommitFiles } from "../managers/yarn/release-file.js";
import { fromVersions } from "../plan/outdated.js";
import type { Update } from "../update.js";
import { readFiles } from "./checkout.js";

/**
 * The branch gets the bump as one commit (package.json files and the
 * lockfile, as npm wrote it; a release file the project keeps, replaced) and the agent's fix as a second one, so a
 * reviewer can read the fix on its own. Contents come from the base, the
 * bump applied in memory and the final checkout, not from any one try.
 */

export interface GroupCommitsOptions {
  dir: string;
  updates: readonly Update[];
  /** Manifest and lockfile contents at the base. */
  base: ReadonlyMap<string, Buffer | null>;
  lockfilePath: string | undefined;
  /** The agent's kept changes (lockfile excluded), when it ran. */
  agentChanges: readonly NetChange[];
  agentSummary: string;
  bumpText: string;
  identity: Identity;
  env: Record<string, string | undefined>;
}

export async function commitGroup(options: GroupCommitsOptions): Promise<CreatedCommit[]> {
  const bumped = new Map<string, Buffer | null>();
  for (const [manifest, edits] of manifestEdits(options.updates)) {
    const before = options.base.get(manifest);
    if (!before) continue;
    bumped.set(manifest, Buffer.from(editManifest(before.toString("utf8"), edits)));
  }
  const swaps = releaseSwaps(options.updates);
  const final = await readFiles(options.dir, [
    ...bumped.keys(),
    ...(options.lockfilePath ? [options.lockfilePath] : []),
    ...options.agentChanges.map((c) => c.path),
    ...swaps.map(({ swap }) => swap.file),
  ]);
  if (options.lockfilePath)
    bumped.set(options.lockfilePath, final.get(options.lockfilePath) ?? null);
  for (const { swap } of swaps)
    for (const [path, after] of swapCommitFiles(swap, options.base, final)) bumped.set(path, after);

  const bumpFiles: TurnFile[] = [...bumped].map(([path, after]) => ({
    path,
    before: options.base.get(path) ?? null,
    after,
  }));
  const fixFiles: TurnFile[] = options.agentChanges
    .map((change) => ({
      path: change.path,
      before: bumped.has(change.path) ? (bumped.get(change.path) ?? null) : change.before,
      after: final.get(change.path) ?? null,
    }))
    .filter((file) => !sameContent(file.before, file.after));
  const turns = [{ turn: 1, text: options.bumpText, files: bumpFiles }];
  if (fixFiles.length > 0) {
    // The subject names the bump; the agent's own account follows in the body.
    const subject = `Adapt the code to ${describeTargets(options.updates)}.`;
    turns.push({ turn: 2, text: `${subject}\n\n${options.agentSummary}`.trim(), files: fixFiles });
  }
  const { commits } = await createCommits({
    dir: options.dir,
    turns,
    identity: options.identity,
    env: options.env,
  });
  return commits;
}

function sameContent(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.equals(b);
}

function describeTargets(updates: readonly Update[]): string {
  const [only] = updates;
  if (updates.length === 1 && only) return `${only.name} ${only.to}`;
  return `the updated dependencies (${updates.map((u) => u.name).join(", ")})`;
}

/** "Bump fx-greet from 1.0.0 to 2.0.0." or a line per package for a group. */
export function bumpCommitText(
  updates: readonly Update[],
  groupName: string,
  single: boolean,
): string {
  const [only] = updates;
  if (updates.length === 1 && only)
    return `Bump ${only.name} from ${fromVersions(only)} to ${only.to}`;
  const list = updates.map((u) => `- ${u.name} ${fromVersions(u)} -> ${u.to}`).join("\n");
  return `Bump the ${groupName} group${single ? "" : ` (${updates.length} packages)`}\n\n${list}`;
}
