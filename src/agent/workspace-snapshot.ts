import { copyFile, readdir, readFile, rm, stat, utimes } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import {
  createGit,
  type Git,
  GitCommandError,
  type GitRunner,
  gitRunner,
} from "../git/git-client.js";
import { diffTrees, readBlob } from "../git/tree/diff-tree.js";
import { EXACT_INDEX_CONFIG } from "../git/tree/exact-tree.js";
import { makeScratchDir } from "../scratch.js";
import type { ChangeRecord, ToolContext } from "./tools/define-tool.js";

/**
 * Finds what a shell command changed in the workspace by comparing the whole
 * tree before and after it. In a git repository the tree is written as a git
 * tree object through a private index (the real index is untouched), so the
 * comparison is as fast as `git add -A` and honours .gitignore exactly.
 * Outside git, files are read into memory, with a cap.
 */
export interface WorkspaceSnapshotter {
  snapshot(): Promise<Snapshot>;
  diff(before: Snapshot, after: Snapshot): Promise<ChangeRecord[]>;
  /** Removes scratch files (the private index). */
  close(): Promise<void>;
}

export type Snapshot =
  | { kind: "git"; tree: string }
  | { kind: "files"; files: Map<string, Buffer>; complete: boolean };

export interface SnapshotOptions {
  root: string;
  /** Environment for the git child processes (needs PATH; no secrets required). */
  env: Record<string, string>;
  /** Cap for the non-git fallback. */
  maxFiles?: number;
  maxBytes?: number;
}

/**
 * Git for our own commands in the agent's workspace: with the agent's
 * (secret-free) environment, but no pager or editor from it (git would
 * start them), no hooks or fsmonitor the agent could
 * have configured to run commands past the policy, and the stat checks that
 * keep the index honest whatever the workspace's config says.
 */
function clientOptions(options: SnapshotOptions, extraEnv?: Record<string, string>) {
  return {
    env: options.env,
    config: EXACT_INDEX_CONFIG,
    ...(extraEnv ? { extraEnv } : {}),
  };
}

/** For output that may be binary (blobs). */
function workspaceGit(options: SnapshotOptions): Git {
  return createGit(options.root, clientOptions(options));
}

/** For everything else: the commands' text, stdin per call. */
function workspaceRunner(options: SnapshotOptions, extraEnv?: Record<string, string>): GitRunner {
  return gitRunner(options.root, clientOptions(options, extraEnv));
}

/**
 * ToolContext.trackChanges over a snapshotter: the workspace before and after
 * `fn`, every difference recorded and handed back to the tool (run_shell
 * marks the files the model had read as stale). Without a snapshotter
 * nothing is tracked.
 */
export function changeTracker(
  snapshotter: WorkspaceSnapshotter | undefined,
  record: (change: ChangeRecord) => void,
): ToolContext["trackChanges"] {
  return async (fn) => {
    if (!snapshotter) return { value: await fn(), changes: [] };
    const before = await snapshotter.snapshot();
    const changes: ChangeRecord[] = [];
    try {
      return { value: await fn(), changes };
    } finally {
      const after = await snapshotter.snapshot();
      changes.push(...(await snapshotter.diff(before, after)));
      for (const change of changes) record(change);
    }
  };
}

/** Holds nothing until the first snapshot, so dropping it unclosed leaks nothing. */
export async function createSnapshotter(options: SnapshotOptions): Promise<WorkspaceSnapshotter> {
  const facts = await workspaceRunner(options)([
    "rev-parse",
    "--is-inside-work-tree",
    "--absolute-git-dir",
    "--show-prefix",
  ]).catch((error: unknown) => {
    // Not a repository: files it is. Anything else (git missing, say) is a real failure.
    if (error instanceof GitCommandError) return null;
    throw error;
  });
  const [inside, gitDir, prefix] = facts?.split("\n") ?? [];
  if (inside !== "true" || !gitDir) return fileSnapshotter(options);
  return gitSnapshotter(options, gitDir, prefix?.trim() ?? "");
}

/**
 * Snapshots through one private index, kept for the whole session: git
 * updates it itself, so its racy-entry protection holds (an entry whose
 * mtime is not older than the index file is compared by content). Stat data
 * alone cannot tell a same-size edit made within the same second, and git
 * compares whole seconds; a copy of an index with a fresh mtime once hid
 * exactly such edits and turned `npm test` into a commit that reverted a fix.
 */
function gitSnapshotter(
  options: SnapshotOptions,
  gitDir: string,
  prefix: string,
): WorkspaceSnapshotter {
  const git = workspaceGit(options);
  const run = workspaceRunner(options);
  // The private index lives in a scratch directory made on first use.
  let index: Promise<string> | undefined;
  const privateIndex = () => {
    index ??= (async () => {
      const dir = await makeScratchDir("index");
      const file = join(dir, "index");
      await seedIndex(join(gitDir, "index"), file, options);
      return file;
    })();
    return index;
  };
  // One snapshot at a time: two `add -A` runs on one index would race for its lock.
  let queue: Promise<unknown> = Promise.resolve();

  return {
    snapshot() {
      const taken = queue.then(async () => {
        const withIndex = workspaceRunner(options, { GIT_INDEX_FILE: await privateIndex() });
        await withIndex(["add", "-A", "--", "."]);
        const tree = (await withIndex(["write-tree"])).trim();
        return { kind: "git", tree } as const;
      });
      queue = taken.catch(() => {});
      return taken;
    },
    async diff(before, after) {
      if (before.kind !== "git" || after.kind !== "git") throw new Error("snapshot kinds differ");
      const changes: ChangeRecord[] = [];
      for (const entry of await diffTrees(run, before.tree, after.tree)) {
        if (!entry.path.startsWith(prefix)) continue;
        const modes =
          entry.old && entry.new && entry.old.mode !== entry.new.mode
            ? { modes: { before: entry.old.mode, after: entry.new.mode } }
            : {};
        changes.push({
          path: entry.path.slice(prefix.length),
          before: entry.old ? await readBlob(git, entry.old.sha) : null,
          after: entry.new ? await readBlob(git, entry.new.sha) : null,
          ...modes,
        });
      }
      return changes;
    },
    async close() {
      if (index) await rm(dirname(await index), { recursive: true, force: true });
    },
  };
}

/**
 * Starts the private index from the workspace's own, so the first snapshot
 * reuses its stat cache instead of hashing every file. The copy is dated a
 * second before the original: a fresh date would make git trust entries
 * written in the original's last second, the very ones it must re-check.
 * An index with assume-unchanged or skip-worktree entries (marks that make
 * `add` look away from a file) is not reused: hashing everything is exact.
 */
async function seedIndex(source: string, target: string, options: SnapshotOptions): Promise<void> {
  const info = await stat(source).catch(() => null);
  if (!info) return;
  await copyFile(source, target);
  const seconds = Math.floor(info.mtimeMs / 1000) - 1;
  await utimes(target, seconds, seconds);
  const listing = await workspaceRunner(options, { GIT_INDEX_FILE: target })([
    "ls-files",
    "-v",
    "-z",
  ]).catch(() => null);
  if (listing === null || hasLookAwayMarks(listing)) await rm(target, { force: true });
}

/** `ls-files -v` tags: lowercase = assume-unchanged, S = skip-worktree. */
function hasLookAwayMarks(listing: string): boolean {
  return listing.split("\0").some((entry) => /^([a-z]|S) /.test(entry));
}

const SKIPPED_DIRS = new Set([".git", "node_modules"]);

function fileSnapshotter(options: SnapshotOptions): WorkspaceSnapshotter {
  const maxFiles = options.maxFiles ?? 20_000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  return {
    async snapshot() {
      const files = new Map<string, Buffer>();
      let bytes = 0;
      let complete = true;
      const walk = async (dir: string): Promise<void> => {
        for (const entry of await readdir(dir, { withFileTypes: true })) {
          if (!complete) return;
          const absolute = join(dir, entry.name);
          if (entry.isDirectory()) {
            if (!SKIPPED_DIRS.has(entry.name)) await walk(absolute);
          } else if (entry.isFile()) {
            const size = (await stat(absolute)).size;
            if (files.size >= maxFiles || bytes + size > maxBytes) {
              complete = false;
              return;
            }
            bytes += size;
            files.set(
              relative(options.root, absolute).split(sep).join("/"),
              await readFile(absolute),
            );
          }
        }
      };
      await walk(options.root);
      return { kind: "files", files, complete };
    },
    async diff(before, after) {
      if (before.kind !== "files" || after.kind !== "files")
        throw new Error("snapshot kinds differ");
      const changes: ChangeRecord[] = [];
      for (const [path, content] of after.files) {
        const old = before.files.get(path) ?? null;
        if (!old?.equals(content)) changes.push({ path, before: old, after: content });
      }
      // A file missing from an incomplete snapshot may simply not have been read.
      if (after.complete) {
        for (const [path, content] of before.files) {
          if (!after.files.has(path)) changes.push({ path, before: content, after: null });
        }
      }
      return changes;
    },
    close: async () => {},
  };
}
