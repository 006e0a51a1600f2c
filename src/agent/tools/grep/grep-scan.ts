import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";
import { fileLines, MAX_TEXT_FILE_BYTES } from "../fs/text-file.js";
import type { MatchCollector } from "./grep-matches.js";

/** What a search looks for in each line. */
export interface LineTest {
  regex: RegExp;
  /** Every matching line holds one of these (ASCII-lowercased when `ignoreCase`); null: no such text. */
  literals: readonly string[] | null;
  ignoreCase: boolean;
}

/** git grep's rule for binary files: a NUL byte in the first 8000. */
const BINARY_PROBE = 8000;
/** Files read at once, so output keeps the listing's order without waiting on each read. */
const PARALLEL = 16;
const CHUNK_BYTES = 1024 * 1024;

/**
 * Tests every line of the given files with one JavaScript regular
 * expression, in the files' order. Lines are numbered as read_file numbers
 * them; binary files are skipped; files too large to hold whole are read in
 * chunks, never skipped.
 */
export async function scanFiles(
  root: string,
  files: readonly string[],
  test: LineTest,
  matches: MatchCollector,
  signal: AbortSignal,
): Promise<void> {
  for (let start = 0; start < files.length && !signal.aborted; start += PARALLEL) {
    const batch = files.slice(start, start + PARALLEL);
    const found = await Promise.all(batch.map((path) => scanFile(join(root, path), test)));
    batch.forEach((path, i) => {
      for (const [line, text] of found[i] ?? []) matches.add(path, line, text);
    });
  }
}

async function scanFile(absolute: string, test: LineTest): Promise<Array<[number, string]>> {
  // A link is never followed (it may point out of the workspace); git grep skips links too.
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (!handle) return [];
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return [];
    if (stats.size > MAX_TEXT_FILE_BYTES) return await scanLarge(handle, test);
    const content = await handle.readFile();
    if (content.subarray(0, BINARY_PROBE).includes(0)) return [];
    const text = content.toString("utf8");
    if (test.literals) {
      const folded = caseFolded(text, test.ignoreCase);
      if (!test.literals.some((literal) => folded.includes(literal))) return [];
    }
    const found: Array<[number, string]> = [];
    fileLines(text).lines.forEach((line, i) => {
      if (test.regex.test(line)) found.push([i + 1, line]);
    });
    return found;
  } finally {
    await handle.close();
  }
}

function caseFolded(text: string, ignoreCase: boolean): string {
  return ignoreCase ? text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase()) : text;
}

/** A file over the in-memory limit, line by line (LF lines; a CR before the LF dropped). */
async function scanLarge(handle: FileHandle, test: LineTest): Promise<Array<[number, string]>> {
  const found: Array<[number, string]> = [];
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let pending: Buffer[] = [];
  let lineNo = 1;
  let position = 0;
  const check = (bytes: Buffer) => {
    const line = bytes.toString("utf8").replace(/\r$/, "");
    if (test.regex.test(line)) found.push([lineNo, line]);
    lineNo++;
  };
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    if (position === 0 && chunk.subarray(0, BINARY_PROBE).includes(0)) return [];
    position += bytesRead;
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      check(Buffer.concat([...pending, chunk.subarray(start, newline)]));
      pending = [];
      start = newline + 1;
    }
    if (start < bytesRead) pending.push(Buffer.from(chunk.subarray(start)));
  }
  const rest = Buffer.concat(pending);
  if (rest.length > 0) check(rest);
  return found;
}
