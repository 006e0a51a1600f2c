/**
 * Removes Markdown and HTML that GitHub renders as nothing: comments, hidden
 * elements, attributes, and link and image targets (sanitize-links.ts). Code
 * (fenced blocks and inline spans) is kept verbatim, because there a reader
 * sees the text as written; so is an autolink's URL.
 *
 * Deciding what is code is the risky part: calling prose "code" would let a
 * hidden comment through. So wherever this scanner and GitHub could disagree
 * it chooses prose: unclosed fences, fences inside lists, quotes or HTML
 * blocks, inline spans that would have to cross a line, and inline spans
 * that cross a table cell's pipe (sanitize-table.ts).
 */

import { type Markup, markupReader } from "./sanitize-html.js";
import { inlineTargetEnd } from "./sanitize-link-target.js";
import { IMAGE_OPENER, LINK_TARGET, stripLinks } from "./sanitize-links.js";
import { crossesCell, type TableReader, tableReader } from "./sanitize-table.js";

interface Piece {
  text: string;
  verbatim: boolean;
}

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const HTML_BLOCK_START = /^ {0,3}<[A-Za-z/!?]/;
const BLANK_LINE = /^[ \t]*$/;

interface Fence {
  indent: number;
  char: string;
  length: number;
}

function openFence(line: string): Fence | undefined {
  const match = FENCE_OPEN.exec(line);
  const run = match?.[2];
  if (!match || !run) return undefined;
  // A backtick fence whose info string holds a backtick is not a fence (CommonMark).
  if (run[0] === "`" && (match[3] ?? "").includes("`")) return undefined;
  return { indent: match[1]?.length ?? 0, char: run[0] ?? "`", length: run.length };
}

/**
 * End of the fenced block starting at `start`, or undefined when it should
 * be read as prose: never closed, or a line less indented than an indented
 * fence (which would end the list item holding it on GitHub).
 */
function fencedBlockEnd(text: string, start: number, fence: Fence): number | undefined {
  let lineStart = text.indexOf("\n", start);
  while (lineStart >= 0) {
    lineStart += 1;
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1];
    if (close && close[0] === fence.char && close.length >= fence.length) return lineEnd;
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    if (fence.indent > 0 && indent < fence.indent && !BLANK_LINE.test(line)) return undefined;
    lineStart = newline;
  }
  return undefined;
}

/** The inline code span opening at `at`, kept on one line (see the file comment). */
function codeSpanEnd(text: string, at: number): number | undefined {
  const runLength = (from: number) => {
    let end = from;
    while (text[end] === "`") end += 1;
    return end - from;
  };
  const run = runLength(at);
  const newline = text.indexOf("\n", at);
  const lineEnd = newline < 0 ? text.length : newline;
  let from = at + run;
  for (;;) {
    const tick = text.indexOf("`", from);
    if (tick < 0 || tick >= lineEnd) return undefined;
    const length = runLength(tick);
    if (length === run) return tick + length;
    from = tick + length;
  }
}

/** Whether the character at `at` is escaped: an odd run of backslashes stands before it. */
function escaped(text: string, at: number): boolean {
  let start = at;
  while (text[start - 1] === "\\") start -= 1;
  return (at - start) % 2 === 1;
}

/**
 * What markup leaves in the prose: its output or, where it hid what it held,
 * the table cells it covered; and a mark where it held an image opener
 * GitHub may read as text, for the alt text after it (sanitize-links.ts).
 * After a backslash (which escaped the `<`) a space comes first, so that the
 * backslash does not escape what follows once the markup is gone.
 */
function markupOutput(text: string, at: number, markup: Markup, table: TableReader): string {
  const kept = markup.output === "" ? table.keptSeparators(at, markup.end) : markup.output;
  const output = escaped(text, at) ? ` ${kept}` : kept;
  const source = text.slice(at, markup.end);
  const opener = source.lastIndexOf("![");
  return opener >= 0 && !source.includes("]", opener) ? output + IMAGE_OPENER : output;
}

/** Splits the text into verbatim pieces and prose, with hidden markup already removed from the prose. */
function scan(text: string): Piece[] {
  const pieces: Piece[] = [];
  let prose = "";
  const flush = () => {
    if (prose !== "") pieces.push({ text: prose, verbatim: false });
    prose = "";
  };
  const keep = (verbatim: string) => {
    flush();
    pieces.push({ text: verbatim, verbatim: true });
  };
  const table = tableReader(text);
  const markupAt = markupReader(text, table);
  let htmlBlock = false;
  // Once a backtick fails to pair on its line (or pairs across a table cell's pipe),
  // GitHub may pair it further on, so the rest of the paragraph gets no code spans
  // (prose is the safe reading).
  let unpairedTick = false;
  let i = 0;
  while (i < text.length) {
    if (i === 0 || text[i - 1] === "\n") {
      const newline = text.indexOf("\n", i);
      const line = text.slice(i, newline < 0 ? text.length : newline);
      if (BLANK_LINE.test(line)) {
        htmlBlock = false;
        unpairedTick = false;
      } else if (!htmlBlock) {
        const fence = openFence(line);
        const end = fence ? fencedBlockEnd(text, i, fence) : undefined;
        if (end !== undefined) {
          keep(text.slice(i, end));
          i = end;
          continue;
        }
        htmlBlock = HTML_BLOCK_START.test(line);
      }
    }
    const char = text[i];
    if (char === "`" && !htmlBlock && !unpairedTick) {
      const end = codeSpanEnd(text, i);
      if (end !== undefined && !crossesCell(text.slice(i, end))) {
        keep(text.slice(i, end));
        i = end;
        continue;
      }
      unpairedTick = true;
    } else if (char === "\\" && text[i + 1] === "`") {
      prose += "\\`";
      i += 2;
      continue;
    } else if (char === "]" && text[i + 1] === "(" && !escaped(text, i)) {
      // GitHub reads a link target as raw text, code and markup alike: it goes whole.
      const end = inlineTargetEnd(text, i + 1);
      if (end !== undefined) {
        prose += `]${LINK_TARGET}`;
        i = end;
        continue;
      }
    } else if (char === "<") {
      const markup = markupAt(i);
      if (markup) {
        if (markup.verbatim) keep(markup.output);
        else prose += markupOutput(text, i, markup, table);
        i = markup.end;
        continue;
      }
    }
    prose += char;
    i += 1;
  }
  flush();
  return pieces;
}

// NUL never survives stripInvisible, so it cannot clash with text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL marks where verbatim text was taken out
const PLACEHOLDER = /\u0000(\d+)\u0000/g;

export function stripHiddenMarkup(text: string): string {
  const verbatim: string[] = [];
  const masked = scan(text)
    .map((piece) => {
      if (!piece.verbatim) return piece.text;
      verbatim.push(piece.text);
      return `\u0000${verbatim.length - 1}\u0000`;
    })
    .join("");
  const unmask = (withPlaceholders: string) =>
    withPlaceholders.replace(PLACEHOLDER, (_match, index: string) => verbatim[Number(index)] ?? "");
  return unmask(stripLinks(masked, unmask));
}
