import { stat } from "node:fs/promises";
import { join } from "node:path";
import { GitCommandError, type GitEnv, type GitRunner, gitRunner } from "../git-client.js";
import type { TreeBlob } from "../tree/diff-tree.js";
import { buildCommitMessage, type CoAuthor, stripSpace } from "./commit-message.js";

/** One file's change within a turn: contents before and after (null = absent). */
export interface TurnFile {
  path: string;
  before: Buffer | null;
  after: Buffer | null;
}

export interface CommitTurn {
  turn: number;
  /** The model's words during the turn; becomes the commit message. */
  text: string;
  files: TurnFile[];
}

export interface Identity {
  name: string;
  email: string;
}

/** git's environment for commits by `author`, committed by `committer` (default: the author). */
export function identityEnv(
  author: Identity,
  committer: Identity = author,
): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
  };
}

export interface CreateCommitsOptions {
  dir: string;
  turns: CommitTurn[];
  /** Author, and committer unless `committer` is given. */
  identity: Identity;
  committer?: Identity;
  coAuthor?: CoAuthor;
  requestUrl?: string;
  /** One commit with the net change of all turns. */
  squash?: boolean;
  /** Message source for the squashed commit (e.g. the agent's final summary); default: all turn texts. */
  squashText?: string;
  /** The caller's environment (from its entry point). */
  env: GitEnv;
  signal?: AbortSignal;
  /**
   * Build the commits on this commit, in a scratch index (`indexFile`),
   * without touching HEAD, the branch or the workspace's index: checkpoints
   * taken while the agent is still at work (change/checkpoints.ts). The same
   * turns give the same trees and messages as on HEAD.
   */
  detached?: { parent: string; indexFile: string } | undefined;
}

export interface CreatedCommit {
  sha: string;
  subject: string;
  files: string[];
  turns: number[];
}

/**
 * Turns recorded file changes into commits: one per turn holding exactly
 * that turn's files at that turn's content (so a file changed again later
 * appears in each commit as it was then), or one squashed commit. Blobs come
 * from the recorded buffers, not from the working tree, which already holds
 * the final state. Paths git ignores and files no turn touched never get in.
 */
export async function createCommits(
  options: CreateCommitsOptions,
): Promise<{ commits: CreatedCommit[] }> {
  const env = options.env;
  const committer = options.committer ?? options.identity;
  const base = { env, ...(options.signal ? { signal: options.signal } : {}) };
  const detached = options.detached;
  const git = gitRunner(options.dir, {
    ...base,
    extraEnv: {
      ...identityEnv(options.identity, committer),
      ...(detached ? { GIT_INDEX_FILE: detached.indexFile } : {}),
    },
  });

  const groups = options.squash ? [squashTurns(options.turns, options.squashText)] : options.turns;
  const paths = [...new Set(groups.flatMap((g) => g.files.map((f) => checkPath(f.path))))];
  if (paths.length === 0) return { commits: [] };
  // A scratch index starts as the parent's tree. The workspace's index goes
  // back to HEAD first: anything the agent staged itself (`git add` in its
  // shell) must not ride along, nor make an ignored path count as tracked.
  if (detached) await git(["read-tree", detached.parent]);
  else await git(["reset", "--quiet"]);
  const ignored = await ignoredPaths(git, paths);
  // The index's entries for these paths, kept in step with every update
  // below: before each commit the index is its parent's tree, so the paths
  // a group staged are those whose entry it changed (what `git diff
  // --cached --name-only` would list, without its process).
  const index = await indexEntries(git, paths);
  let parent = detached?.parent;
  const commits: CreatedCommit[] = [];
  for (const group of groups) {
    const files = group.files.filter((f) => !ignored.has(f.path) && !isInGitDir(f.path));
    if (files.length === 0) continue;
    const update = ["update-index", "--verbose", "--add"];
    const removals: string[] = [];
    const before = new Map<string, TreeBlob | undefined>();
    for (const file of files) {
      if (!before.has(file.path)) before.set(file.path, index.get(file.path));
      if (file.after === null) {
        removals.push(file.path);
        index.delete(file.path);
        continue;
      }
      const mode = index.get(file.path)?.mode ?? (await worktreeMode(options.dir, file.path));
      const sha = (
        await git(["hash-object", "-w", `--path=${file.path}`, "--stdin"], file.after)
      ).trim();
      index.set(file.path, { mode, sha });
      update.push("--cacheinfo", `${mode},${sha},${file.path}`);
    }
    if (removals.length > 0) update.push("--force-remove", "--", ...removals);
    await git(update);
    const staged = [...before]
      .filter(([path, was]) => !sameEntry(was, index.get(path)))
      .map(([path]) => path)
      // In the index's order, as git lists them: by the paths' bytes.
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    if (staged.length === 0) continue;
    const message = buildCommitMessage({
      text: group.text,
      files: staged,
      ...(options.coAuthor ? { coAuthor: options.coAuthor } : {}),
      ...(options.requestUrl ? { requestUrl: options.requestUrl } : {}),
    });
    const turns = options.squash ? options.turns.map((t) => t.turn) : [group.turn];
    let sha: string;
    if (parent !== undefined && detached) {
      const tree = (await git(["write-tree"])).trim();
      // The cleanup `git commit --cleanup=whitespace` does, so the message is the same.
      const text = stripSpace(message.message);
      sha = (await git(["commit-tree", tree, "-p", parent, "-F", "-"], text)).trim();
      parent = sha;
    } else {
      await commit(git, message.message);
      sha = (await git(["rev-parse", "HEAD"])).trim();
    }
    commits.push({ sha, subject: message.subject, files: staged, turns });
  }
  if (detached) return { commits };
  // The index now holds blobs without stat data; refreshing lets `git status`
  // see the working tree as clean where it matches. The working tree itself
  // is never rewritten: it is what the agent left, and the truth to check
  // the commits against (tree-guard.ts).
  await git(["update-index", "-q", "--refresh"]).catch(() => {});
  return { commits };
}

/**
 * Hooks never run (see git-client.ts): they are the repository's code, and
 * would run outside the sandbox with the job's environment.
 */
async function commit(git: GitRunner, message: string): Promise<void> {
  // whitespace, not the default strip: a model's "# Heading" line is text, not a comment.
  try {
    await git(["commit", "--no-verify", "--cleanup=whitespace", "-m", message]);
  } catch (error) {
    // Leave the index as HEAD so the workspace is not half-staged.
    await git(["reset", "--quiet"]).catch(() => {});
    throw error;
  }
}

function squashTurns(turns: CommitTurn[], text: string | undefined): CommitTurn {
  const byPath = new Map<string, TurnFile>();
  for (const turn of turns) {
    for (const file of turn.files) {
      const seen = byPath.get(file.path);
      if (seen) seen.after = file.after;
      else byPath.set(file.path, { ...file });
    }
  }
  const files = [...byPath.values()].filter((f) => !sameContent(f.before, f.after));
  return {
    turn: turns[0]?.turn ?? 0,
    text:
      text ??
      turns
        .map((t) => t.text.trim())
        .filter(Boolean)
        .join("\n\n"),
    files,
  };
}

async function ignoredPaths(git: GitRunner, paths: string[]): Promise<Set<string>> {
  try {
    // Tracked files are never reported: a force-added file stays committable.
    const out = await git(["check-ignore", "-z", "--stdin"], paths.join("\0"));
    return new Set(out.split("\0").filter(Boolean));
  } catch (error) {
    // Exit code 1 means "nothing is ignored".
    if (error instanceof GitCommandError && error.exitCode === 1) return new Set();
    throw error;
  }
}

/** `ls-files --stage` for these paths: "mode sha stage\tpath" each. */
async function indexEntries(git: GitRunner, paths: string[]): Promise<Map<string, TreeBlob>> {
  const out = await git(["ls-files", "--stage", "-z", "--", ...paths.map(literal)]);
  const entries = new Map<string, TreeBlob>();
  for (const entry of out.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab <= 0) continue;
    const [mode = "100644", sha = ""] = entry.slice(0, tab).split(" ");
    entries.set(entry.slice(tab + 1), { mode, sha });
  }
  return entries;
}

function sameEntry(a: TreeBlob | undefined, b: TreeBlob | undefined): boolean {
  return a?.mode === b?.mode && a?.sha === b?.sha;
}

async function worktreeMode(dir: string, path: string): Promise<string> {
  const info = await stat(join(dir, path)).catch(() => null);
  return info && info.mode & 0o111 ? "100755" : "100644";
}

/** Paths come from the agent's tools: relative, forward slashes, inside the tree. */
function checkPath(path: string): string {
  if (
    path === "" ||
    path.startsWith("/") ||
    /^[a-z]:/i.test(path) ||
    path.split("/").includes("..")
  ) {
    throw new Error(`refusing to commit "${path}": paths must be relative to the workspace root`);
  }
  return path;
}

/** A pathspec that matches exactly this path, even with `*` or `?` in it. */
function literal(path: string): string {
  return `:(literal)${path}`;
}

function isInGitDir(path: string): boolean {
  return path.split("/").some((part) => part.toLowerCase() === ".git");
}

function sameContent(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.equals(b);
}
