import { join, relative, sep } from "node:path";
import {
  createGit,
  type GitClientOptions,
  GitCommandError,
  runGit,
  runGitBuffer,
} from "../git/git-client.js";
import { readWorkspaceText } from "../sandbox/host-files.js";
import type { GitInfo, InstructionFile } from "./prompt.js";

const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"];
const MAX_INSTRUCTION_CHARS = 20_000;
const MAX_STATUS_LINES = 40;

/**
 * Reads AGENTS.md / CLAUDE.md from the workspace root down to `cwd`,
 * ancestors first, so a package's own file refines the repository's.
 */
export async function readInstructionFiles(root: string, cwd: string): Promise<InstructionFile[]> {
  const rel = relative(root, cwd);
  const segments = rel && !rel.startsWith("..") ? rel.split(sep) : [];
  const dirs = [root];
  for (let i = 1; i <= segments.length; i++) dirs.push(join(root, ...segments.slice(0, i)));

  const files: InstructionFile[] = [];
  for (const dir of dirs) {
    for (const name of INSTRUCTION_FILES) {
      const content = await readWorkspaceText(dir, name).catch(() => null);
      const file = instructionFile(relative(root, join(dir, name)).split(sep).join("/"), content);
      if (file) files.push(file);
    }
  }
  return files;
}

/** An instruction file as the prompt has it: none when empty, cut when long. */
function instructionFile(path: string, content: string | null): InstructionFile | null {
  if (content === null || !content.trim()) return null;
  return {
    path,
    content:
      content.length > MAX_INSTRUCTION_CHARS
        ? `${content.slice(0, MAX_INSTRUCTION_CHARS)}\n[... cut ...]`
        : content,
  };
}

/** Branch, short status and recent commits; undefined outside a git repository. */
export async function readGitInfo(
  cwd: string,
  env: Record<string, string>,
): Promise<GitInfo | undefined> {
  // Our own commands: no pager or editor from the agent's environment, no hooks.
  const git = createGit(cwd, { env });
  // Side by side; log fails without commits, status outside a repository.
  const log = git.raw(["log", "--oneline", "-n", "5"]).catch(() => "");
  let status: string;
  try {
    status = await git.raw(["status", "--short", "--branch"]);
  } catch (error) {
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
  return gitInfoFrom(status, await log);
}

/** GitInfo from `status --short --branch` and `log --oneline -n 5`. */
function gitInfoFrom(status: string, log: string): GitInfo {
  const [head = "", ...statusLines] = status.split("\n").filter(Boolean);
  const recentCommits = log.trim();
  return {
    branch: branchOf(head),
    status:
      statusLines.length > MAX_STATUS_LINES
        ? [
            ...statusLines.slice(0, MAX_STATUS_LINES),
            `... ${statusLines.length - MAX_STATUS_LINES} more`,
          ].join("\n")
        : statusLines.join("\n"),
    recentCommits,
  };
}

/** The branch from `status --branch`'s first line: `## main...origin/main [ahead 1]`. */
function branchOf(head: string): string {
  const text = head.replace(/^## /, "");
  if (text.startsWith("No commits yet on ")) return "(no commits yet)";
  if (text.startsWith("HEAD (no branch)")) return "HEAD (detached)";
  return text.split("...")[0]?.trim() || "(unknown)";
}

/** What a session will read in a new worktree, known before its checkout ends. */
export interface CheckoutFacts {
  git: GitInfo;
  instructions: InstructionFile[];
}

/** Modes of a plain file in a git tree: checked out as the blob's bytes. */
const PLAIN_FILE = new Set(["100644", "100755"]);

/**
 * What `readGitInfo` and `readInstructionFiles` will find at the root of a
 * new worktree of `rev` on a branch of its own (clean, no upstream), read
 * from the repository (a mirror) while that worktree is still being checked
 * out: the recent commits from the same object store, the instruction
 * files from their blobs. Undefined when it cannot be told from the objects
 * (an instruction file that is a link or a folder). A checkout that writes
 * something else (a filter, line endings) makes the workspace's facts
 * differ, which the session sees for itself (see sendFirstTurnEarly).
 *
 * `env` is the session's (as its `readGitInfo` runs git); `blobs` may carry
 * the token, which a partial mirror needs to fetch the files' contents.
 */
export async function readCheckoutFacts(options: {
  gitDir: string;
  rev: string;
  branch: string;
  env: Record<string, string>;
  blobs: GitClientOptions;
}): Promise<CheckoutFacts | undefined> {
  const { gitDir, rev } = options;
  const [log, listing] = await Promise.all([
    runGit(gitDir, ["log", "--oneline", "-n", "5", rev], { env: options.env }).catch(() => ""),
    runGit(gitDir, ["ls-tree", "-z", rev, "--", ...INSTRUCTION_FILES], options.blobs),
  ]);
  const entries = new Map<string, { mode: string; oid: string }>();
  for (const entry of listing.split("\0").filter(Boolean)) {
    const match = /^(\d+) \w+ ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (match?.[1] && match[2] && match[3])
      entries.set(match[3], { mode: match[1], oid: match[2] });
  }
  const contents: Array<string | null> = [];
  for (const name of INSTRUCTION_FILES) {
    const entry = entries.get(name);
    if (!entry) {
      contents.push(null);
      continue;
    }
    if (!PLAIN_FILE.has(entry.mode)) return undefined;
    contents.push(
      (await runGitBuffer(gitDir, ["cat-file", "blob", entry.oid], options.blobs)).toString("utf8"),
    );
  }
  const instructions = INSTRUCTION_FILES.flatMap((name, i) => {
    const file = instructionFile(name, contents[i] ?? null);
    return file ? [file] : [];
  });
  // A new branch without upstream, nothing changed yet: what `status --short --branch` says.
  return { git: gitInfoFrom(`## ${options.branch}\n`, log), instructions };
}
