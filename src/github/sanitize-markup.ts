/**
 * Removes Markdown and HTML that GitHub renders as nothing: comments, hidden
 * elements, attributes, link titles, image alt text and unused link reference
 * definitions (`[//]: # (note)`). Code (fenced blocks and inline spans) is
 * kept verbatim, because there a reader sees the text as written.
 *
 * Deciding what is code is the risky part: calling prose "code" would let a
 * hidden comment through. So wherever this scanner and GitHub could disagree
 * it chooses prose: unclosed fences, fences inside lists, quotes or HTML
 * blocks, and inline spans that would have to cross a line.
 */

import { markupAt } from "./sanitize-html.js";

interface Piece {
  text: string;
  code: boolean;
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

/** Splits the text into code and prose, with hidden markup already removed from the prose. */
function scan(text: string): Piece[] {
  const pieces: Piece[] = [];
  let prose = "";
  const flush = () => {
    if (prose !== "") pieces.push({ text: prose, code: false });
    prose = "";
  };
  let htmlBlock = false;
  // Once a backtick fails to pair on its line, GitHub may pair it further on, so the
  // rest of the paragraph gets no code spans (prose is the safe reading).
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
          flush();
          pieces.push({ text: text.slice(i, end), code: true });
          i = end;
          continue;
        }
        htmlBlock = HTML_BLOCK_START.test(line);
      }
    }
    const char = text[i];
    if (char === "`" && !htmlBlock && !unpairedTick) {
      const end = codeSpanEnd(text, i);
      if (end !== undefined) {
        flush();
        pieces.push({ text: text.slice(i, end), code: true });
        i = end;
        continue;
      }
      unpairedTick = true;
    } else if (char === "\\" && text[i + 1] === "`") {
      prose += "\\`";
      i += 2;
      continue;
    } else if (char === "<") {
      const markup = markupAt(text, i);
      if (markup) {
        prose += markup.output;
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

const LINK_TITLE =
  /\]\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)\s+(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\((?:\\.|[^()\\])*\))\s*\)/g;
const IMAGE_ALT = /!\[(?:\\.|[^[\]\\]|\[[^[\]]*\])*\](?=[([])/g;
const REFERENCE_DEFINITION =
  /^( {0,3})\[((?:\\.|[^[\]\\]){1,999})\]:[ \t]*\n?[ \t]*(<[^<>\n]*>|[^\s<>]\S*)(?:(?:[ \t]+|[ \t]*\n[ \t]*)(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\((?:\\.|[^()\\])*\)))?[ \t]*$/gm;

function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * Link titles and image alt text show only on hover or when an image fails;
 * a reference definition never shows, so one nothing links to is dropped
 * whole and a used one loses its title.
 */
function stripHiddenMarkdown(prose: string): string {
  const used = new Map<string, number>();
  for (const match of prose.matchAll(/\[((?:\\.|[^[\]\\])+)\]/g)) {
    const label = normalizeLabel(match[1] ?? "");
    used.set(label, (used.get(label) ?? 0) + 1);
  }
  return prose
    .replace(REFERENCE_DEFINITION, (definition, indent: string, label: string, target: string) => {
      if (label.startsWith("^")) return definition;
      // The definition's own `[label]` is one of the counted uses.
      return (used.get(normalizeLabel(label)) ?? 0) > 1 ? `${indent}[${label}]: ${target}` : "";
    })
    .replace(LINK_TITLE, (_link, target: string) => `](${target})`)
    .replace(IMAGE_ALT, "![]");
}

// NUL never survives stripInvisible, so it cannot clash with text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL marks where code was taken out
const PLACEHOLDER = /\u0000(\d+)\u0000/g;

export function stripHiddenMarkup(text: string): string {
  const pieces = scan(text);
  const code: string[] = [];
  const masked = pieces
    .map((piece) => {
      if (!piece.code) return piece.text;
      code.push(piece.text);
      return `\u0000${code.length - 1}\u0000`;
    })
    .join("");
  return stripHiddenMarkdown(masked).replace(
    PLACEHOLDER,
    (_match, index: string) => code[Number(index)] ?? "",
  );
}
