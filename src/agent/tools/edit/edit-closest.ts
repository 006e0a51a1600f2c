/** Lines of the file, 0-based, end exclusive, with how alike they are to old_string (0..1). */
export interface Region {
  start: number;
  end: number;
  score: number;
}

/** Above this many lines only exact line hits are used to find candidates (speed). */
const MAX_SCANNED_LINES = 50_000;
/** A line that occurs more often than this says nothing about where old_string is. */
const MAX_HITS_PER_LINE = 50;
const COMPARED_CHARS = 300;

/**
 * Where old_string most likely was meant to be: starts voted for by lines
 * that occur unchanged, plus those of the lines most like old_string's
 * longest line, each scored line by line.
 */
export function closestRegion(fileLines: string[], oldLines: string[]): Region | null {
  const k = oldLines.length;
  if (k === 0 || fileLines.length === 0) return null;
  const starts = new Set<number>();
  const wanted = new Map<string, number[]>();
  oldLines.forEach((line, i) => {
    const key = line.trim();
    if (key.length >= 2) wanted.set(key, [...(wanted.get(key) ?? []), i]);
  });
  const hits = new Map<string, number[]>();
  fileLines.forEach((line, j) => {
    const key = line.trim();
    if (wanted.has(key)) hits.set(key, [...(hits.get(key) ?? []), j]);
  });
  for (const [key, at] of hits) {
    if (at.length > MAX_HITS_PER_LINE) continue;
    for (const j of at) for (const i of wanted.get(key) ?? []) starts.add(j - i);
  }
  if (fileLines.length <= MAX_SCANNED_LINES) {
    const anchor = longestIndex(oldLines);
    const probe = (oldLines[anchor] ?? "").trim();
    const best = fileLines
      .map((line, j) => ({ j, score: similarity(line.trim(), probe) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 3);
    for (const { j } of best) starts.add(j - anchor);
  }
  let best: Region | null = null;
  for (const start of starts) {
    let total = 0;
    for (let i = 0; i < k; i++) {
      total += lineSimilarity(fileLines[start + i], oldLines[i] ?? "", i, k);
    }
    const score = total / k;
    if (!best || score > best.score) {
      best = { start: Math.max(0, start), end: Math.min(fileLines.length, start + k), score };
    }
  }
  return best;
}

function longestIndex(lines: string[]): number {
  let at = 0;
  lines.forEach((line, i) => {
    if (line.trim().length > (lines[at] ?? "").trim().length) at = i;
  });
  return at;
}

/**
 * Whether a file line holds old_string's i-th of k lines as a match would
 * need it: the first may be the end of a line, the last its start.
 */
export function lineAgrees(fileLine: string, oldLine: string, i: number, k: number): boolean {
  if (k === 1) return fileLine.includes(oldLine);
  if (i === 0) return fileLine.endsWith(oldLine);
  if (i === k - 1) return fileLine.startsWith(oldLine);
  return fileLine === oldLine;
}

function lineSimilarity(fileLine: string | undefined, oldLine: string, i: number, k: number) {
  if (fileLine === undefined) return 0;
  if (lineAgrees(fileLine, oldLine, i, k)) return 1;
  return similarity(fileLine.trim(), oldLine.trim());
}

/** Dice coefficient over character pairs: cheap, and forgiving of one changed word. */
export function similarity(a: string, b: string): number {
  const x = a.slice(0, COMPARED_CHARS);
  const y = b.slice(0, COMPARED_CHARS);
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const pairs = new Map<string, number>();
  for (let i = 0; i + 1 < x.length; i++) {
    const pair = x.slice(i, i + 2);
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i + 1 < y.length; i++) {
    const pair = y.slice(i, i + 2);
    const left = pairs.get(pair) ?? 0;
    if (left > 0) {
      shared++;
      pairs.set(pair, left - 1);
    }
  }
  return (2 * shared) / (x.length - 1 + (y.length - 1));
}

/**
 * How a file line and old_string's line differ, as a sentence: the longest
 * shared start and end are set aside (old_string's line may begin or end
 * mid-line), and what is left on each side is the difference.
 */
export function describeDifference(
  fileLine: string,
  oldLine: string,
  fileLineNo: number,
  oldLineNo: number,
): string {
  const a = fileLine.slice(0, MAX_ALIGNED_CHARS);
  const b = oldLine.slice(0, MAX_ALIGNED_CHARS);
  const starts = [0, ...positionsOf(a, b[0])];
  const ends = [a.length, ...positionsOf(a, b.at(-1)).map((i) => i + 1)];
  let best = { from: 0, to: a.length, prefix: 0, suffix: 0 };
  for (const from of starts) {
    const prefix = commonPrefix(a, b, from);
    for (const to of ends) {
      if (to < from) continue;
      const suffix = Math.min(commonSuffix(a, b, to), b.length - prefix, to - from - prefix);
      if (suffix >= 0 && prefix + suffix > best.prefix + best.suffix)
        best = { from, to, prefix, suffix };
    }
  }
  const fileHas = a.slice(best.from + best.prefix, best.to - best.suffix);
  const oldHas = b.slice(best.prefix, b.length - best.suffix);
  const where = `line ${fileLineNo} of the file and line ${oldLineNo} of old_string differ at column ${best.from + best.prefix + 1}`;
  if (fileHas === "") return `${where}: old_string has ${shown(oldHas)}, which the file does not`;
  if (oldHas === "") return `${where}: the file has ${shown(fileHas)}, which old_string leaves out`;
  return `${where}: the file has ${shown(fileHas)} where old_string has ${shown(oldHas)}`;
}

const MAX_ALIGNED_CHARS = 2000;
const MAX_CANDIDATES = 200;

function positionsOf(text: string, char: string | undefined): number[] {
  const out: number[] = [];
  if (char === undefined) return out;
  for (
    let i = text.indexOf(char);
    i !== -1 && out.length < MAX_CANDIDATES;
    i = text.indexOf(char, i + 1)
  ) {
    out.push(i);
  }
  return out;
}

function commonPrefix(a: string, b: string, from: number): number {
  let n = 0;
  while (n < b.length && from + n < a.length && a[from + n] === b[n]) n++;
  return n;
}

/** Shared characters of `b`'s end and `a` ending at `to`. */
function commonSuffix(a: string, b: string, to: number): number {
  let n = 0;
  while (n < b.length && to - n > 0 && a[to - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/** A snippet in backticks, with an invisible or look-alike first character named. */
function shown(snippet: string): string {
  const text = snippet.length > 40 ? `${snippet.slice(0, 40)}...` : snippet;
  const first = snippet.codePointAt(0) ?? 0;
  const name = characterName(first);
  return name ? `\`${text}\` (starting with ${name})` : `\`${text}\``;
}

const NAMES: Record<number, string> = {
  9: "a tab",
  32: "a space",
  13: "a carriage return \\r",
  160: "a non-breaking space U+00A0",
  8203: "a zero-width space U+200B",
  65279: "a zero-width no-break space U+FEFF",
  8216: "a curly quote U+2018",
  8217: "a curly apostrophe U+2019",
  8220: "a curly quote U+201C",
  8221: "a curly quote U+201D",
  8211: "an en dash U+2013",
  8212: "an em dash U+2014",
};

export function characterName(code: number): string | null {
  const known = NAMES[code];
  if (known) return known;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return `the control character U+${hex(code)}`;
  if (code >= 0x300 && code <= 0x36f) return `a combining mark U+${hex(code)}`;
  if ((code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x3000) {
    return `a special space U+${hex(code)}`;
  }
  return null;
}

function hex(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, "0");
}
