/**
 * The members of a JSON object, read from its bytes without parsing what
 * the reader does not ask for. A full packument is megabytes of JSON of
 * which the plan keeps a few fields per version: parsing all of it made a
 * string of the whole document and a tree twice its size before anything
 * was dropped (next's 21 MB document: 21 MB of string, 39 MB of tree),
 * which set a monorepo plan's peak memory. Here each member's value is
 * found by its bounds; the caller parses only the slices it keeps.
 *
 * Skipped values are bounded, not validated: a document cut short is
 * refused, but a malformed value nobody reads is not looked into.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The first index at or after `at` that is not JSON whitespace. */
export function skipSpace(bytes: Buffer, at: number): number {
  let i = at;
  while (isSpace(bytes[i])) i++;
  return i;
}

/** The index just past the string that opens at `at`, or -1 when it never closes. */
function stringEnd(bytes: Buffer, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let k = quote - 1; bytes[k] === BACKSLASH; k--) backslashes++;
    // An odd run of backslashes escapes this quote.
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The index just past the value that starts at `at`, or -1 when it has no end. */
export function valueEnd(bytes: Buffer, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) return stringEnd(bytes, at);
  const length = bytes.length;
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    let i = at;
    while (i < length) {
      const byte = bytes[i];
      if (byte === QUOTE) {
        i = stringEnd(bytes, i);
        if (i < 0) return -1;
        continue;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --depth === 0) return i + 1;
      i++;
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let i = at;
  while (i < length) {
    const byte = bytes[i];
    if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isSpace(byte)) break;
    i++;
  }
  return i > at ? i : -1;
}

/** The value between `start` and `end`, parsed. */
export function parseSlice(bytes: Buffer, start: number, end: number): unknown {
  return JSON.parse(bytes.toString("utf8", start, end));
}

/**
 * Calls `visit` with each member's key and the index its value starts at,
 * in order, for the object that opens at `at`; `visit` reads or skips the
 * value and returns the index just past it (valueEnd skips it), or -1 when
 * it has no end. Returns the index just past the object, or -1 when there
 * is no object there or it is not well formed (as far as it is read). A key
 * is decoded as JSON decodes it (escapes included).
 */
export function objectMembers(
  bytes: Buffer,
  at: number,
  visit: (key: string, start: number) => number,
): number {
  if (bytes[at] !== OPEN_BRACE) return -1;
  let i = skipSpace(bytes, at + 1);
  if (bytes[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (bytes[i] !== QUOTE) return -1;
    const keyEnd = stringEnd(bytes, i);
    if (keyEnd < 0) return -1;
    const raw = bytes.toString("utf8", i + 1, keyEnd - 1);
    const key = raw.includes("\\") ? (parseSlice(bytes, i, keyEnd) as string) : raw;
    i = skipSpace(bytes, keyEnd);
    if (bytes[i] !== COLON) return -1;
    const end = visit(key, skipSpace(bytes, i + 1));
    if (end < 0) return -1;
    i = skipSpace(bytes, end);
    if (bytes[i] === COMMA) i = skipSpace(bytes, i + 1);
    else if (bytes[i] === CLOSE_BRACE) return i + 1;
    else return -1;
  }
}

/**
 * A visitor for objectMembers that parses the values of `keys` into `into`
 * and skips the rest.
 */
export function keepMembers(
  bytes: Buffer,
  keys: ReadonlySet<string>,
  into: Record<string, unknown>,
): (key: string, start: number) => number {
  return (key, start) => {
    const end = valueEnd(bytes, start);
    if (end >= 0 && keys.has(key)) into[key] = parseSlice(bytes, start, end);
    return end;
  };
}

/** Whether the byte at `at` opens an object. */
export function opensObject(bytes: Buffer, at: number): boolean {
  return bytes[at] === OPEN_BRACE;
}
