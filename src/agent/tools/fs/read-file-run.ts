import { type FileHandle, open } from "node:fs/promises";
import { type ToolContext, ToolError } from "../define-tool.js";
import { MAX_OUTPUT_CHARS } from "../truncate.js";
import { notFoundError } from "./not-found.js";
import { isNotFound, resolveInWorkspace } from "./paths.js";
import {
  DEFAULT_READ_LIMIT,
  MAX_LINE_CHARS,
  MAX_SHOWN_CHARS,
  type ReadFileInput,
} from "./read-file-input.js";
import { readStamp, stampOf } from "./read-guard.js";
import {
  decodeTextFile,
  fileLines,
  MAX_TEXT_FILE_BYTES,
  shellQuote,
  tooLargeMessage,
} from "./text-file.js";

/** Line numbers listed by name in a note; more are counted. */
const MAX_LISTED = 20;

/** read_file's work, loaded at its first call (define-tool.ts runOnFirstCall). */
export async function readFileRun(args: ReadFileInput, ctx: ToolContext): Promise<string> {
  const path = await resolveInWorkspace(ctx.root, args.file_path);
  const handle = await open(path.absolute, "r").catch(async (error: unknown) => {
    if (isNotFound(error)) throw await notFoundError(ctx, path, args.file_path);
    throw error;
  });
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      throw new ToolError(
        `${path.relative} is a directory; use list_files with path "${path.relative}" to see its files`,
      );
    }
    const offset = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_READ_LIMIT;
    if (stats.size > MAX_TEXT_FILE_BYTES) {
      if (args.offset === undefined && args.limit === undefined) {
        throw new ToolError(tooLargeMessage(path.relative, stats.size, "read"));
      }
      return await readPart(handle, path.relative, offset, limit);
    }
    const content = await handle.readFile();
    const text = decodeTextFile(content, path.relative, "read");
    const { lines, crOnly } = fileLines(text);
    const stamp = (to: number) =>
      ctx.reads.set(
        path.absolute,
        readStamp(ctx.reads.get(path.absolute), stampOf(content, stats), {
          from: offset,
          to,
          total: lines.length,
        }),
      );
    if (lines.length === 0) {
      stamp(0);
      return `${path.relative} is empty (0 lines).`;
    }
    if (offset > lines.length) {
      throw new ToolError(
        `offset ${offset} is past the end of ${path.relative}, which has ${lines.length} line${lines.length === 1 ? "" : "s"}; call read_file with an offset from 1 to ${lines.length}`,
      );
    }
    const shown = formatLines(
      { lines, first: 1, total: lines.length },
      path.relative,
      offset,
      limit,
    );
    stamp(shown.end);
    return crOnly ? `${shown.text}\n${crOnlyNote(path.relative)}` : shown.text;
  } finally {
    await handle.close();
  }
}

function crOnlyNote(relative: string): string {
  return `[${relative} uses CR-only line endings (a lone \\r ends each line, as on classic Mac OS), so its lines are shown split at each \\r. edit_file matches these lines and keeps the \\r endings; to convert the file to LF, use run_shell (\`sed -i 's/\\r/\\n/g' ${shellQuote(relative)}\`)]`;
}

/** Some of a file's lines: `lines[0]` is line `first`; `total` is unknown for a file read in part. */
interface LinePart {
  lines: readonly string[];
  first: number;
  total: number | null;
}

/** Lines `offset`.. numbered, with notes on what was cut and how to read on; `end` is the last shown. */
function formatLines(
  part: LinePart,
  relative: string,
  offset: number,
  limit: number,
): { text: string; end: number } {
  const stop = Math.min(part.first - 1 + part.lines.length, offset - 1 + limit);
  const out: string[] = [];
  let size = 0;
  const cut: number[] = [];
  const withCr: number[] = [];
  let end = offset - 1;
  while (end < stop) {
    const line = part.lines[end + 1 - part.first] ?? "";
    const shown = `${String(end + 1).padStart(6)} | ${cutLine(line)}`;
    if (out.length > 0 && size + shown.length + 1 > MAX_SHOWN_CHARS) break;
    if (line.length > MAX_LINE_CHARS) cut.push(end + 1);
    if (line.includes("\r")) withCr.push(end + 1);
    out.push(shown);
    size += shown.length + 1;
    end++;
  }
  if (cut.length > 0) {
    out.push(
      `[${listOf(cut, "line")} ${cut.length === 1 ? "is" : "are"} longer than ${MAX_LINE_CHARS} characters and cut where marked (no line is left out); the marker is not in the file, so leave it out of edit_file's old_string. See the rest with run_shell, e.g. \`sed -n '${cut[0]}p' ${shellQuote(relative)} | cut -c${MAX_LINE_CHARS + 1}-${MAX_LINE_CHARS * 4}\`]`,
    );
  }
  if (withCr.length > 0) {
    out.push(
      `[${listOf(withCr, "line")} ${withCr.length === 1 ? "holds" : "hold"} a carriage return (\\r) inside the line, which most displays hide; in edit_file's old_string write it as \\r where it stands]`,
    );
  }
  const why = end < stop ? `, stopped at the ${MAX_OUTPUT_CHARS}-character output limit` : "";
  if (part.total === null) {
    out.push(
      `[lines ${offset}-${end} shown${why}; the file is too large to count its lines; call read_file with offset ${end + 1} to read more]`,
    );
  } else if (end < part.total) {
    out.push(
      `[lines ${offset}-${end} of ${part.total} shown${why}; call read_file with offset ${end + 1} to read more]`,
    );
  }
  return { text: out.join("\n"), end };
}

/** "line 7", "lines 3, 9 and 12", "lines 1, 2, ... (40 in all)". */
function listOf(numbers: readonly number[], noun: string): string {
  if (numbers.length === 1) return `${noun} ${numbers[0]}`;
  const listed = numbers.slice(0, MAX_LISTED);
  if (numbers.length > MAX_LISTED) {
    return `${noun}s ${listed.join(", ")}, ... (${numbers.length} in all)`;
  }
  return `${noun}s ${listed.slice(0, -1).join(", ")} and ${listed.at(-1)}`;
}

function cutLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)}... [${line.length - MAX_LINE_CHARS} more characters on this line]`;
}

const CHUNK_BYTES = 1024 * 1024;

/**
 * Lines `offset`..`offset + limit - 1` of a file too large to hold whole,
 * read in chunks up to the last line wanted. No read stamp: edit_file and
 * write_file refuse such a file anyway.
 */
async function readPart(
  handle: FileHandle,
  relative: string,
  offset: number,
  limit: number,
): Promise<string> {
  const last = offset + limit - 1;
  const buffer = Buffer.alloc(CHUNK_BYTES);
  const wanted: Buffer[] = [];
  let current: Buffer[] = [];
  let lineNo = 1;
  let position = 0;
  let ended = false;
  reading: for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) {
      ended = true;
      break;
    }
    position += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    for (let start = 0; ; ) {
      const newline = chunk.indexOf(10, start);
      const keep = lineNo >= offset;
      if (newline === -1) {
        if (keep) current.push(Buffer.from(chunk.subarray(start)));
        break;
      }
      if (keep) wanted.push(Buffer.concat([...current, chunk.subarray(start, newline)]));
      current = [];
      lineNo++;
      start = newline + 1;
      if (lineNo > last) break reading;
    }
  }
  const rest = Buffer.concat(current);
  if (ended && rest.length > 0 && lineNo >= offset) {
    wanted.push(rest);
    lineNo++;
  }
  if (wanted.length === 0) {
    const lines = lineNo - 1;
    throw new ToolError(
      `offset ${offset} is past the end of ${relative}, which has ${lines} line${lines === 1 ? "" : "s"}; call read_file with an offset from 1 to ${lines}`,
    );
  }
  const text = decodeTextFile(Buffer.concat(withNewlines(wanted)), relative, "read");
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  return formatLines(
    { lines, first: offset, total: ended ? lineNo - 1 : null },
    relative,
    offset,
    limit,
  ).text;
}

function withNewlines(lines: Buffer[]): Buffer[] {
  return lines.flatMap((line, i) => (i === 0 ? [line] : [Buffer.from("\n"), line]));
}
