/**
 * The inline link target after a `]`: `(url "title")`, read as CommonMark
 * reads it. GitHub reads a target as raw text (a backtick or a comment in it
 * is just part of the URL or title), so the scanner takes the whole target
 * out before it looks for code or markup, and sanitize-links.ts drops it.
 */

/** What a backslash escapes: ASCII punctuation; before anything else it is a backslash. */
export const ESCAPABLE = /[!-/:-@[-`{-~]/;
/** CommonMark's own limit on nested parentheses in a URL. */
const MAX_PARENTHESES = 32;
const BLANK_LINE_AHEAD = /\n[ \t]*\n/y;

/** Past spaces, tabs and at most one line break (a target never spans a blank line). */
function skipSpace(text: string, from: number): number {
  let at = from;
  let lineBreaks = 0;
  for (; text[at] === " " || text[at] === "\t" || text[at] === "\n"; at += 1) {
    if (text[at] === "\n") lineBreaks += 1;
    if (lineBreaks > 1) return from;
  }
  return at;
}

/** End of the URL (`<url>` or `url`, maybe empty) starting at `at`. */
function destinationEnd(text: string, at: number): number | undefined {
  const pointy = text[at] === "<";
  let depth = 0;
  for (let i = pointy ? at + 1 : at; i < text.length; i += 1) {
    const char = text[i] ?? "";
    if (char === "\\" && ESCAPABLE.test(text[i + 1] ?? "")) i += 1;
    else if (pointy) {
      if (char === ">") return i + 1;
      if (char === "<" || char === "\n") return undefined;
    } else if (char === "(") {
      depth += 1;
      if (depth > MAX_PARENTHESES) return undefined;
    } else if (char === ")" && depth > 0) depth -= 1;
    else if (char === ")" || char <= " ") return depth === 0 ? i : undefined;
  }
  return pointy || depth > 0 ? undefined : text.length;
}

/** End of the title (`"t"`, `'t'` or `(t)`) starting at `at`. */
function titleEnd(text: string, at: number): number | undefined {
  const opener = text[at];
  if (opener !== '"' && opener !== "'" && opener !== "(") return undefined;
  const closer = opener === "(" ? ")" : opener;
  for (let i = at + 1; i < text.length; i += 1) {
    if (text[i] === "\\") i += 1;
    else if (text[i] === closer) return i + 1;
    else if (opener === "(" && text[i] === "(") return undefined;
    else if (text[i] === "\n") {
      BLANK_LINE_AHEAD.lastIndex = i;
      if (BLANK_LINE_AHEAD.test(text)) return undefined;
    }
  }
  return undefined;
}

/** End of the target `(url "title")` whose `(` is at `at`, if it is one. */
export function inlineTargetEnd(text: string, at: number): number | undefined {
  const destination = destinationEnd(text, skipSpace(text, at + 1));
  if (destination === undefined) return undefined;
  let end = skipSpace(text, destination);
  const title = end > destination ? titleEnd(text, end) : undefined;
  if (title !== undefined) end = skipSpace(text, title);
  return text[end] === ")" ? end + 1 : undefined;
}
