import { join, relative, sep } from "node:path";
import { GitCommandError, gitRunner } from "../git/git-client.js";
import { readWorkspaceText } from "../sandbox/host-files.js";
import type { GitInfo, InstructionFile } from "./prompt.js";

export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"];
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
export function instructionFile(path: string, content: string | null): InstructionFile | null {
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
  const git = gitRunner(cwd, { env });
  // Side by side; log fails without commits, status outside a repository.
  const log = git(["log", "--oneline", "-n", "5"]).catch(() => "");
  let status: string;
  try {
    status = await git(["status", "--short", "--branch"]);
  } catch (error) {
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
  return gitInfoFrom(status, await log);
}

/** GitInfo from `status --short --branch` and `log --oneline -n 5`. */
export function gitInfoFrom(status: string, log: string): GitInfo {
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
