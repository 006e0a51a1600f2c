import type { Stats } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type ToolContext, ToolError } from "../define-tool.js";
import { isNotFound, resolveInWorkspace, type WorkspacePath } from "../fs/paths.js";
import { assertReadAndUnchanged, assertSeenWhole, stampOf } from "../fs/read-guard.js";
import {
  fileLines,
  MAX_TEXT_FILE_BYTES,
  toCrlf,
  toLf,
  tooLargeMessage,
  unreadableReason,
  usesCrlf,
} from "../fs/text-file.js";
import { indentationProblem, indentRuleFor } from "./edit-indent-guard.js";
import { looksLikeReadOutput } from "./edit-prefixes.js";
import type { WriteFileInput } from "./write-file-input.js";

/** write_file's work, loaded at its first call (define-tool.ts runOnFirstCall). */
export async function writeFileRun(args: WriteFileInput, ctx: ToolContext): Promise<string> {
  if (/[/\\]$/.test(args.file_path)) {
    throw new ToolError(
      `file_path "${args.file_path}" ends with a slash, so it names a folder; give the file's name too (e.g. "${args.file_path.replace(/[/\\]+$/, "")}/index.ts")`,
    );
  }
  const path = await resolveInWorkspace(ctx.root, args.file_path, { forWrite: true });
  if (looksLikeReadOutput(args.content)) {
    throw new ToolError(
      "every line of content starts with read_file's line-number prefix (`   N | `), which is not part of the file; remove the prefixes and call write_file again",
    );
  }
  const existing = await stat(path.absolute).catch((error: unknown) => {
    if (isNotFound(error)) return null;
    throw error;
  });
  if (!existing && args.file_path !== args.file_path.trim()) {
    throw new ToolError(spacedName(args.file_path, path.relative));
  }
  if (existing?.isDirectory()) {
    throw new ToolError(
      `${path.relative} is a directory; give a file path inside it (e.g. "${path.relative}/index.ts")`,
    );
  }
  let before: Buffer | null = null;
  let content = args.content;
  const kept: string[] = [];
  // The model's copy was of a file a command deleted since: writing recreates it, and says so.
  const recreated = !existing && ctx.reads.has(path.absolute);
  if (existing) {
    before = await readExisting(ctx, path, existing);
    const old = before.toString("utf8");
    // A full rewrite is still a change to the file's text, not to its encoding conventions.
    if (usesCrlf(old) && !content.includes("\r\n") && content.includes("\n")) {
      content = toCrlf(content);
      kept.push("CRLF line endings");
    } else if (fileLines(old).crOnly && !content.includes("\r") && content.includes("\n")) {
      content = content.replace(/\n/g, "\r");
      kept.push("CR-only line endings");
    }
    if (old.startsWith("\uFEFF") && !content.startsWith("\uFEFF")) {
      content = `\uFEFF${content}`;
      kept.push("byte order mark");
    }
  } else {
    await makeParents(ctx.root, path);
  }
  const rule = indentRuleFor(path.relative);
  const broken = rule && indentationProblem(rule, path.relative, "", 0, toLf(content), "content");
  if (broken) throw new ToolError(broken);
  const after = Buffer.from(content, "utf8");
  if (before?.equals(after)) {
    return `${path.relative} already has exactly this content; nothing was written`;
  }
  await writeFile(path.absolute, after);
  ctx.reads.set(path.absolute, stampOf(after, await stat(path.absolute)));
  ctx.recordChange({ path: path.relative, before, after });
  const lines = countLines(content);
  const note =
    kept.length > 0
      ? ` (kept the file's ${kept.join(" and ")}; to change those, use run_shell)`
      : recreated
        ? " (it had been deleted since you read it; it exists again now)"
        : "";
  return `${before ? "Overwrote" : "Created"} ${path.relative} (${lines} lines, ${after.length} bytes)${note}`;
}

/** The current bytes of a file about to be overwritten, once it is known the model saw them. */
async function readExisting(
  ctx: ToolContext,
  path: WorkspacePath,
  existing: Stats,
): Promise<Buffer> {
  if (!ctx.reads.has(path.absolute)) {
    // "Read it first" would be a dead end for a file read_file refuses.
    const reason =
      existing.size > MAX_TEXT_FILE_BYTES
        ? tooLargeMessage(path.relative, existing.size, "write")
        : unreadableReason(path.relative, await readFile(path.absolute));
    if (reason) throw new ToolError(reason);
  }
  const content = await readFile(path.absolute);
  assertReadAndUnchanged(ctx, path.absolute, path.relative, { content, stats: existing });
  assertSeenWhole(ctx.reads.get(path.absolute), path.relative);
  return content;
}

/** A new file whose name starts or ends with a space is a typo far more often than meant. */
function spacedName(written: string, relative: string): string {
  const where = /^\s/.test(written) ? "starts" : "ends";
  return `"${relative}" does not exist, and write_file will not create a file whose name ${where} with a space (that space would be part of the name). Use "${written.trim()}"`;
}

/**
 * Creates the missing folders, explaining the usual failure (a file where a
 * folder should be) in workspace terms rather than with mkdir's host path.
 */
async function makeParents(root: string, path: WorkspacePath): Promise<void> {
  try {
    await mkdir(dirname(path.absolute), { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EEXIST" && code !== "ENOTDIR") throw error;
    const segments = path.relative.split("/").slice(0, -1);
    for (let i = 1; i <= segments.length; i++) {
      const folder = segments.slice(0, i).join("/");
      const info = await stat(join(root, folder)).catch(() => null);
      if (info && !info.isDirectory()) {
        throw new ToolError(
          `cannot create ${path.relative}: ${folder} is a file, not a folder. Choose another path, or rename that file with run_shell first (e.g. \`mv ${folder} ${folder}.old\`)`,
        );
      }
    }
    throw new ToolError(
      `cannot create the folders for ${path.relative}; check them with run_shell (\`ls -la\`)`,
    );
  }
}

function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.match(/\n/g)?.length ?? 0;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
