import { readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { simpleGit } from "simple-git";
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
      const content = await readFile(join(dir, name), "utf8").catch(() => null);
      if (content === null || !content.trim()) continue;
      files.push({
        path: relative(root, join(dir, name)).split(sep).join("/"),
        content:
          content.length > MAX_INSTRUCTION_CHARS
            ? `${content.slice(0, MAX_INSTRUCTION_CHARS)}\n[... cut ...]`
            : content,
      });
    }
  }
  return files;
}

/** Branch, short status and recent commits; undefined outside a git repository. */
export async function readGitInfo(
  cwd: string,
  env: Record<string, string>,
): Promise<GitInfo | undefined> {
  const git = simpleGit({ baseDir: cwd }).env(env);
  try {
    const inside = (await git.raw(["rev-parse", "--is-inside-work-tree"])).trim();
    if (inside !== "true") return undefined;
  } catch {
    return undefined;
  }
  const branch =
    (await git.raw(["rev-parse", "--abbrev-ref", "HEAD"]).catch(() => "")).trim() ||
    "(no commits yet)";
  const statusLines = (await git.raw(["status", "--short"]).catch(() => ""))
    .split("\n")
    .filter(Boolean);
  const status =
    statusLines.length > MAX_STATUS_LINES
      ? [
          ...statusLines.slice(0, MAX_STATUS_LINES),
          `... ${statusLines.length - MAX_STATUS_LINES} more`,
        ].join("\n")
      : statusLines.join("\n");
  const recentCommits = (await git.raw(["log", "--oneline", "-n", "5"]).catch(() => "")).trim();
  return { branch, status, recentCommits };
}
