import { readFile, stat, writeFile } from "node:fs/promises";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { z } from "zod";
import { defineTool, ToolError } from "./define-tool.js";
import { isNotFound, resolveInWorkspace } from "./paths.js";
import { assertReadAndUnchanged, stampOf } from "./read-guard.js";
import { decodeTextFile, toCrlf, toLf, usesCrlf } from "./text-file.js";

const MAX_DIFF_LINES = 60;

const input = z.object({
  file_path: z
    .string()
    .describe("Path of the file to edit, relative to the workspace root (or absolute inside it)"),
  old_string: z
    .string()
    .describe(
      "Exact text to replace, copied from the file without read_file's line-number prefixes; include enough surrounding lines to make it unique",
    ),
  new_string: z.string().describe("Text to put in its place (must differ from old_string)"),
  replace_all: z
    .boolean()
    .optional()
    .describe(
      "Replace every occurrence of old_string instead of requiring exactly one (default false)",
    ),
});

export const editFileTool = defineTool({
  name: "edit_file",
  description: [
    "Replaces an exact, literal piece of text in a file (no regular expressions).",
    "old_string must occur exactly once unless replace_all is true; whitespace and indentation must match.",
    "The file must have been read with read_file first and not changed since.",
    "Line endings are kept as the file has them. Returns a short diff of the change.",
  ].join(" "),
  input,
  summarize: (args) => `edit_file ${args.file_path}`,
  async run(args, ctx) {
    if (args.old_string === "") {
      throw new ToolError("old_string is empty; to create or rewrite a whole file use write_file");
    }
    if (args.old_string === args.new_string) {
      throw new ToolError(
        "old_string and new_string are identical, so the edit would change nothing",
      );
    }
    const path = await resolveInWorkspace(ctx.root, args.file_path, { forWrite: true });
    const current = await stat(path.absolute).catch((error: unknown) => {
      if (isNotFound(error)) {
        throw new ToolError(
          `${path.relative} does not exist; use write_file to create it, or list_files to find the right path`,
        );
      }
      throw error;
    });
    if (current.isDirectory())
      throw new ToolError(`${path.relative} is a directory; give a file path`);
    assertReadAndUnchanged(ctx, path.absolute, path.relative, current);

    const before = await readFile(path.absolute);
    const text = decodeTextFile(before, path.relative);
    const { oldString, newString, positions } = locate(text, args.old_string, args.new_string);
    if (positions.length === 0) {
      throw new ToolError(notFoundMessage(text, args.old_string, path.relative));
    }
    if (positions.length > 1 && !args.replace_all) {
      const lines = positions.slice(0, 10).map((p) => lineAt(text, p));
      throw new ToolError(
        `found ${positions.length} matches of old_string in ${path.relative} (at lines ${lines.join(", ")}${positions.length > 10 ? ", ..." : ""}); add surrounding lines to make old_string unique, or set replace_all to true to change every one`,
      );
    }
    // split/join rather than String.replace: `$&` and friends in new_string must stay literal.
    const updated = text.split(oldString).join(newString);
    const after = Buffer.from(updated, "utf8");
    await writeFile(path.absolute, after);
    ctx.reads.set(path.absolute, stampOf(await stat(path.absolute)));
    ctx.recordChange({ path: path.relative, before, after });

    const count = positions.length;
    const head = `Edited ${path.relative}: replaced ${count} occurrence${count === 1 ? "" : "s"}.`;
    return `${head}\n${shortDiff(path.relative, toLf(text), toLf(updated))}`;
  },
});

/**
 * Models write "\n" whatever the file uses, so in a CRLF file the strings
 * are matched and written with CRLF; the literal form is the fallback for
 * files that mix both endings.
 */
function locate(
  text: string,
  oldString: string,
  newString: string,
): { oldString: string; newString: string; positions: number[] } {
  if (usesCrlf(text)) {
    const converted = { oldString: toCrlf(oldString), newString: toCrlf(newString) };
    const positions = findAll(text, converted.oldString);
    if (positions.length > 0) return { ...converted, positions };
  }
  return { oldString, newString, positions: findAll(text, oldString) };
}

function findAll(text: string, needle: string): number[] {
  const positions: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    positions.push(at);
  }
  return positions;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function notFoundMessage(text: string, oldString: string, relative: string): string {
  const base = `old_string was not found in ${relative}.`;
  const normalized = (s: string): string =>
    toLf(s)
      .split("\n")
      .map((l) => l.trim())
      .join("\n");
  const hint = normalized(text).includes(normalized(oldString))
    ? " A match exists if indentation or trailing whitespace is ignored: copy the exact whitespace from read_file's output."
    : " Call read_file again and copy the exact current text (without the line-number prefixes).";
  return base + hint;
}

function shortDiff(relative: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(
    `a/${relative}`,
    `b/${relative}`,
    before,
    after,
    undefined,
    undefined,
    {
      context: 2,
      headerOptions: FILE_HEADERS_ONLY,
    },
  );
  const lines = patch.trimEnd().split("\n");
  if (lines.length <= MAX_DIFF_LINES) return lines.join("\n");
  return [
    ...lines.slice(0, MAX_DIFF_LINES),
    `[... ${lines.length - MAX_DIFF_LINES} more diff lines not shown]`,
  ].join("\n");
}
