import { open } from "node:fs/promises";
import { z } from "zod";
import { defineTool, ToolError } from "./define-tool.js";
import { isNotFound, resolveInWorkspace } from "./paths.js";
import { stampOf } from "./read-guard.js";
import { decodeTextFile } from "./text-file.js";

export const DEFAULT_READ_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
/** Larger files are refused whole; the model can page them with run_shell (sed -n). */
const MAX_FILE_BYTES = 20 * 1024 * 1024;

const input = z.object({
  file_path: z
    .string()
    .describe("Path of the file, relative to the workspace root (or absolute inside it)"),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("1-based line number to start reading at (default 1)"),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Maximum number of lines to return (default ${DEFAULT_READ_LIMIT})`),
});

export const readFileTool = defineTool({
  name: "read_file",
  description: [
    "Reads a text file from the workspace and returns its lines numbered as `     7 | text`.",
    "The numbers and the ` | ` separator are not part of the file: leave them out of edit_file's old_string.",
    `Returns at most ${DEFAULT_READ_LIMIT} lines by default; use offset/limit to read further in long files.`,
    `Lines longer than ${MAX_LINE_CHARS} characters are cut. Binary files are refused.`,
    "A file must be read before edit_file or write_file may change it.",
  ].join(" "),
  input,
  readOnly: true,
  concurrencySafe: true,
  summarize: (args) => `read_file ${args.file_path}`,
  async run(args, ctx) {
    const path = await resolveInWorkspace(ctx.root, args.file_path);
    const handle = await open(path.absolute, "r").catch((error: unknown) => {
      if (isNotFound(error)) {
        throw new ToolError(
          `${path.relative} does not exist; use list_files to find the right path`,
        );
      }
      throw error;
    });
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) {
        throw new ToolError(`${path.relative} is a directory; use list_files to see its files`);
      }
      if (stats.size > MAX_FILE_BYTES) {
        throw new ToolError(
          `${path.relative} is ${stats.size} bytes, too large to read whole; use grep_search to find the lines you need, or run_shell with sed -n 'START,ENDp'`,
        );
      }
      const text = decodeTextFile(await handle.readFile(), path.relative);
      ctx.reads.set(path.absolute, stampOf(stats));
      return formatLines(text, path.relative, args.offset ?? 1, args.limit ?? DEFAULT_READ_LIMIT);
    } finally {
      await handle.close();
    }
  },
});

function formatLines(text: string, relative: string, offset: number, limit: number): string {
  if (text.length === 0) return `${relative} is empty (0 lines).`;
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (offset > lines.length) {
    throw new ToolError(
      `offset ${offset} is past the end of ${relative}, which has ${lines.length} lines`,
    );
  }
  const end = Math.min(lines.length, offset - 1 + limit);
  const out: string[] = [];
  for (let i = offset - 1; i < end; i++) {
    out.push(`${String(i + 1).padStart(6)} | ${cutLine((lines[i] ?? "").replace(/\r$/, ""))}`);
  }
  if (end < lines.length) {
    out.push(
      `[lines ${offset}-${end} of ${lines.length} shown; call read_file with offset ${end + 1} to read more]`,
    );
  }
  return out.join("\n");
}

function cutLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)}... [${line.length - MAX_LINE_CHARS} more characters on this line]`;
}
