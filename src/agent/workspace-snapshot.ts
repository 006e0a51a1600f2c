import { copyFile, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import type { SimpleGit } from "simple-git";
import { createGit, GitCommandError } from "../git/git-client.js";
import type { ChangeRecord } from "./tools/define-tool.js";

/**
 * Finds what a shell command changed in the workspace by comparing the whole
 * tree before and after it. In a git repository the tree is written as a git
 * tree object through a throwaway index (the real index is untouched), so the
 * comparison is as fast as `git add -A` and honours .gitignore exactly.
 * Outside git, files are read into memory, with a cap.
 */
export interface WorkspaceSnapshotter {
  snapshot(): Promise<Snapshot>;
  diff(before: Snapshot, after: Snapshot): Promise<ChangeRecord[]>;
  /** Removes scratch files (the throwaway index). */
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
 * (secret-free) environment, but no pager or editor from it (simple-git
 * refuses to run with those set) and no hooks or fsmonitor the agent could
 * have configured to run commands past the policy.
 */
function workspaceGit(options: SnapshotOptions, extraEnv?: Record<string, string>): SimpleGit {
  return createGit(options.root, {
    env: options.env,
    noHooks: true,
    ...(extraEnv ? { extraEnv } : {}),
  });
}

/** Holds nothing until the first snapshot, so dropping it unclosed leaks nothing. */
export async function createSnapshotter(options: SnapshotOptions): Promise<WorkspaceSnapshotter> {
  const facts = await workspaceGit(options)
    .raw(["rev-parse", "--is-inside-work-tree", "--absolute-git-dir", "--show-prefix"])
    .catch((error: unknown) => {
      // Not a repository: files it is. Anything else (git missing, say) is a real failure.
      if (error instanceof GitCommandError) return null;
      throw error;
    });
  const [inside, gitDir, prefix] = facts?.split("\n") ?? [];
  if (inside !== "true" || !gitDir) return fileSnapshotter(options);
  return gitSnapshotter(options, gitDir, prefix?.trim() ?? "");
}

function gitSnapshotter(
  options: SnapshotOptions,
  gitDir: string,
  prefix: string,
): WorkspaceSnapshotter {
  const git = workspaceGit(options);
  // The throwaway index lives in a scratch directory made on first use.
  let scratch: Promise<string> | undefined;
  const indexFile = async () => {
    scratch ??= mkdtemp(join(tmpdir(), "patchwright-index-"));
    return join(await scratch, "index");
  };

  return {
    async snapshot() {
      const index = await indexFile();
      const withIndex = workspaceGit(options, { GIT_INDEX_FILE: index });
      // Starting from a copy of the real index lets `add -A` reuse its stat
      // cache instead of hashing every file again.
      await copyFile(join(gitDir, "index"), index).catch(() => rm(index, { force: true }));
      await withIndex.raw(["add", "-A", "--", "."]);
      const tree = (await withIndex.raw(["write-tree"])).trim();
      return { kind: "git", tree };
    },
    async diff(before, after) {
      if (before.kind !== "git" || after.kind !== "git") throw new Error("snapshot kinds differ");
      if (before.tree === after.tree) return [];
      const raw = await git.raw(["diff-tree", "-r", "-z", "--no-renames", before.tree, after.tree]);
      const changes: ChangeRecord[] = [];
      for (const entry of parseDiffTree(raw)) {
        if (!entry.path.startsWith(prefix)) continue;
        changes.push({
          path: entry.path.slice(prefix.length),
          before: entry.oldBlob ? await readBlob(git, entry.oldBlob) : null,
          after: entry.newBlob ? await readBlob(git, entry.newBlob) : null,
        });
      }
      return changes;
    },
    async close() {
      if (scratch) await rm(await scratch, { recursive: true, force: true });
    },
  };
}

const NULL_SHA = /^0+$/;

interface DiffTreeEntry {
  path: string;
  oldBlob: string | null;
  newBlob: string | null;
}

/** Parses `git diff-tree -r -z` output: ":mode mode sha sha status\0path\0" repeated. */
export function parseDiffTree(raw: string): DiffTreeEntry[] {
  const parts = raw.split("\0");
  const entries: DiffTreeEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]?.trim().split(" ") ?? [];
    const path = parts[i + 1] ?? "";
    const [oldMode, newMode, oldSha, newSha] = [meta[0], meta[1], meta[2], meta[3]];
    if (!oldSha || !newSha || !path) continue;
    // Submodule entries (mode 160000) are commits, not file contents.
    if (oldMode?.endsWith("160000") || newMode === "160000") continue;
    entries.push({
      path,
      oldBlob: NULL_SHA.test(oldSha) ? null : oldSha,
      newBlob: NULL_SHA.test(newSha) ? null : newSha,
    });
  }
  return entries;
}

async function readBlob(git: SimpleGit, sha: string): Promise<Buffer> {
  const out: unknown = await git.binaryCatFile(["blob", sha]);
  return Buffer.isBuffer(out) ? out : Buffer.from(String(out));
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
