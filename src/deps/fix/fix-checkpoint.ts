import { rm } from "node:fs/promises";
import { join } from "node:path";
import {
  deleteCheckpoint,
  fetchCheckpoint,
  pushCheckpoint,
} from "../../git/commit/checkpoint-ref.js";
import { type Identity, identityEnv } from "../../git/commit/commits.js";
import { createGit, type GitEnv, gitRunner } from "../../git/git-client.js";
import type { PushTarget } from "../../git/push/push-context.js";
import type { KnownSecret } from "../../git/push/secret-scan.js";
import { diffTrees, readBlob } from "../../git/tree/diff-tree.js";
import { makeScratchDir } from "../../scratch.js";
import type { Update } from "../update.js";

/**
 * The agent's fix of a broken bump, saved on the job's checkpoint ref as it
 * goes, so a deploy or a crash in the middle of a dependency job costs
 * neither the fix nor a second model run. One commit on the base holding
 * the files the group keeps from the agent (no lockfile, no installed
 * packages), with what the report needs in its message: the updates it is
 * for, whether the agent had finished, why it stopped, what it cost, its
 * summary. A run of the same group on the same base for the same updates
 * picks it up: a finished fix is applied as it is, an unfinished one is
 * handed to the agent to carry on. Anything else starts over.
 */

export interface FixCheckpointTarget extends PushTarget {
  ref: string;
  /** The job's git environment (the process's, passed in). */
  env: GitEnv;
  identity: Identity;
  /** The checkpoint is scanned like a branch before it leaves. */
  secrets: readonly KnownSecret[];
}

export interface SavedFix {
  /** The updates the fix is for (`name@version`, sorted). */
  updates: string[];
  /** The agent had finished (true), or was stopped or is still at work. */
  finished: boolean;
  stopReason: string;
  costUsd: number;
  summary: string;
  /** The kept files: content, or null where the agent deleted one. */
  files: Map<string, Buffer | null>;
}

const SUBJECT = "patchwright: dependency fix checkpoint";
const NO_SUMMARY = "(no summary yet)";

export function updatesKey(updates: readonly Pick<Update, "name" | "to">[]): string[] {
  return updates.map((u) => `${u.name}@${u.to}`).sort();
}

/** Commits the fix on `base` (outside the workspace's index and HEAD) and force-pushes it to the ref. */
export async function saveFixCheckpoint(
  target: FixCheckpointTarget,
  base: string,
  fix: SavedFix,
): Promise<string> {
  const scratch = await makeScratchDir("deps-checkpoint");
  try {
    const git = gitRunner(target.dir, {
      env: target.env,
      extraEnv: {
        GIT_INDEX_FILE: join(scratch, "index"),
        ...identityEnv(target.identity),
      },
    });
    await git(["read-tree", base]);
    const modes = new Map(
      (await git(["ls-files", "-s", "-z"]))
        .split("\0")
        .filter(Boolean)
        .map((line) => [line.slice(line.indexOf("\t") + 1), line.split(" ")[0] ?? "100644"]),
    );
    const update = ["update-index", "--add"];
    const removals: string[] = [];
    for (const [path, content] of fix.files) {
      if (content === null) {
        removals.push(path);
        continue;
      }
      const blob = (await git(["hash-object", "-w", "--stdin"], content)).trim();
      update.push("--cacheinfo", `${modes.get(path) ?? "100644"},${blob},${path}`);
    }
    if (removals.length > 0) update.push("--force-remove", "--", ...removals);
    if (update.length > 2) await git(update);
    const tree = (await git(["write-tree"])).trim();
    const sha = (await git(["commit-tree", tree, "-p", base, "-F", "-"], message(fix))).trim();
    await pushCheckpoint({ ...target, sha });
    return sha;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The saved fix for these updates on this base, fetched into the
 * workspace; undefined when there is none or it is for something else.
 */
export async function loadFixCheckpoint(
  target: FixCheckpointTarget,
  base: string,
  updates: readonly string[],
): Promise<SavedFix | undefined> {
  const sha = await fetchCheckpoint(target);
  if (!sha) return undefined;
  const git = createGit(target.dir, { env: target.env });
  const parents = (await git.raw(["rev-list", "--parents", "-n", "1", sha])).trim().split(" ");
  if (parents.length !== 2 || parents[1] !== base) return undefined;
  const saved = parse(await git.raw(["log", "-1", "--format=%B", sha]));
  if (!saved || saved.updates.join(" ") !== [...updates].join(" ")) return undefined;
  const files = new Map<string, Buffer | null>();
  for (const entry of await diffTrees(gitRunner(target.dir, { env: target.env }), base, sha)) {
    files.set(entry.path, entry.new ? await readBlob(git, entry.new.sha) : null);
  }
  return { ...saved, files };
}

export async function dropFixCheckpoint(target: FixCheckpointTarget): Promise<void> {
  await deleteCheckpoint(target);
}

function message(fix: SavedFix): string {
  return [
    SUBJECT,
    "",
    fix.summary.trim() || NO_SUMMARY,
    "",
    `Patchwright-Updates: ${fix.updates.join(" ")}`,
    `Patchwright-Finished: ${fix.finished}`,
    `Patchwright-Stop: ${fix.stopReason}`,
    `Patchwright-Cost: ${fix.costUsd}`,
    "",
  ].join("\n");
}

function parse(text: string): Omit<SavedFix, "files"> | undefined {
  if (!text.startsWith(SUBJECT)) return undefined;
  // The trailers are the message's last paragraph: the summary above is the
  // model's text and may hold anything, lines that look like trailers too.
  const trimmed = text.trimEnd();
  const cut = trimmed.lastIndexOf("\n\n");
  const trailers = trimmed.slice(cut + 2);
  const trailer = (name: string) =>
    new RegExp(`^Patchwright-${name}: (.*)$`, "m").exec(trailers)?.[1]?.trim();
  const updates = trailer("Updates");
  const finished = trailer("Finished");
  const cost = Number(trailer("Cost"));
  if (updates === undefined || finished === undefined || !Number.isFinite(cost)) return undefined;
  const body = trimmed.slice(SUBJECT.length, cut).trim();
  return {
    updates: updates.split(" ").filter(Boolean),
    finished: finished === "true",
    stopReason: trailer("Stop") ?? "error",
    costUsd: cost,
    summary: body === NO_SUMMARY ? "" : body,
  };
}
