import { open } from "node:fs/promises";
import { z } from "zod";
import { defineTool, ToolError } from "./define-tool.js";
import { isNotFound, resolveInWorkspace } from "./paths.js";
import { stampOf } from "./read-guard.js";
import { decodeTextFile, MAX_TEXT_FILE_BYTES, shellQuote, tooLargeMessage } from "./text-file.js";
import { MAX_OUTPUT_CHARS } from "./truncate.js";

export const DEFAULT_READ_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
/**
 * Lines stop before the registry's output cap would cut the middle out, and
 * always on a line boundary, so the footer's range and offset are the truth.
 */
const MAX_SHOWN_CHARS = MAX_OUTPUT_CHARS - 1_000;

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
    `Returns at most ${DEFAULT_READ_LIMIT} lines (and about ${MAX_SHOWN_CHARS} characters) by default; use offset/limit to read further in long files.`,
    `Lines longer than ${MAX_LINE_CHARS} characters are cut. Binary files are refused.`,
    "A file must be read before edit_file or write_file may change it.",
  ].join(" "),
  input,
  kind: "read",
  pathFields: ["file_path"],
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
        throw new ToolError(
          `${path.relative} is a directory; use list_files with path "${path.relative}" to see its files`,
        );
      }
      if (stats.size > MAX_TEXT_FILE_BYTES) {
        throw new ToolError(tooLargeMessage(path.relative, stats.size, "read"));
      }
      const text = decodeTextFile(await handle.readFile(), path.relative, "read");
      ctx.reads.set(path.absolute, stampOf(stats));
      return formatLines(text, path.relative, args.offset ?? 1, args.limit ?? DEFAULT_READ_LIMIT);
    } finally {
      await handle.close();
    }
  },
});

function formatLines(text: string, relative: string, offset: number, limit: number): string {
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length === 0) return `${relative} is empty (0 lines).`;
  if (offset > lines.length) {
    throw new ToolError(
      `offset ${offset} is past the end of ${relative}, which has ${lines.length} line${lines.length === 1 ? "" : "s"}; call read_file with an offset from 1 to ${lines.length}`,
    );
  }
  const wanted = Math.min(lines.length, offset - 1 + limit);
  const out: string[] = [];
  let size = 0;
  let cutLines = 0;
  let firstCut = 0;
  let end = offset - 1;
  while (end < wanted) {
    const line = (lines[end] ?? "").replace(/\r$/, "");
    const shown = `${String(end + 1).padStart(6)} | ${cutLine(line)}`;
    if (out.length > 0 && size + shown.length + 1 > MAX_SHOWN_CHARS) break;
    if (line.length > MAX_LINE_CHARS) {
      if (cutLines === 0) firstCut = end + 1;
      cutLines++;
    }
    out.push(shown);
    size += shown.length + 1;
    end++;
  }
  if (cutLines > 0) {
    out.push(
      `[${cutLines} line${cutLines === 1 ? " was" : "s were"} longer than ${MAX_LINE_CHARS} characters and cut where marked; the marker is not in the file, so leave it out of edit_file's old_string. See the rest with run_shell, e.g. \`sed -n '${firstCut}p' ${shellQuote(relative)} | cut -c${MAX_LINE_CHARS + 1}-${MAX_LINE_CHARS * 4}\`]`,
    );
  }
  if (end < lines.length) {
    const why = end < wanted ? `, stopped at the ${MAX_OUTPUT_CHARS}-character output limit` : "";
    out.push(
      `[lines ${offset}-${end} of ${lines.length} shown${why}; call read_file with offset ${end + 1} to read more]`,
    );
  }
  return out.join("\n");
}

function cutLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)}... [${line.length - MAX_LINE_CHARS} more characters on this line]`;
}
