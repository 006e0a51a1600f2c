import type { SecretMatch, SecretRule } from "./rule.js";

/**
 * A private key's lines without its BEGIN line: what a log excerpt keeps
 * when it cuts to the lines around an error (the key's tail and its END
 * line, or a run from its middle). Each line is judged by its last word, so
 * a log's timestamps or read_file's line numbers in front do not hide it. A
 * run of PEM-width lines (64 base64 characters) counts as a key unless the
 * nearest BEGIN before it opens a certificate or a public key, which are
 * not secret.
 */

/** PEM's 64 characters a line; OpenSSH's own format writes 70. */
const PEM_WIDTH = /^(?:[A-Za-z0-9+/]{64}|[A-Za-z0-9+/]{70})$/;
const FULL_LINE = /^[A-Za-z0-9+/]{60,76}={0,2}$/;
/** The last line of a body, right above its END line: as short as one group of four. */
const LAST_LINE = /^[A-Za-z0-9+/]{2,76}={0,2}$/;
const HEADER = /^(?:Proc-Type|DEK-Info):/;
const END_PRIVATE = /-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/;
const BEGIN = /-----BEGIN([ A-Z0-9]*)-----/g;
/** Shorter runs are too likely to be something else wrapped at 64 (and too short to use). */
const MIN_RUN = 4;

interface Line {
  start: number;
  end: number;
  /** Where its last word starts, and the word. */
  wordStart: number;
  word: string;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(start, end).replace(/\s+$/, "");
    const word = line.split(/[\s|]+/).pop() ?? "";
    lines.push({ start, end, wordStart: start + line.length - word.length, word });
    if (newline < 0) break;
    start = newline + 1;
  }
  return lines;
}

const keyLine = (line: Line) => FULL_LINE.test(line.word) || HEADER.test(line.word);

/** Whether the last BEGIN before `at` opens something public that is still open there. */
function insidePublicBlock(text: string, at: number): boolean {
  let last: RegExpExecArray | undefined;
  for (const match of text.slice(Math.max(0, at - 20_000), at).matchAll(BEGIN)) last = match;
  if (!last || /PRIVATE/.test(last[1] ?? "")) return false;
  const after = text.slice(Math.max(0, at - 20_000) + last.index, at);
  return !/-----END /.test(after);
}

export const PEM_LINES_RULE: SecretRule = {
  id: "private-key",
  find(text: string): SecretMatch[] {
    if (!/[A-Za-z0-9+/]{60}\r?\n/.test(text)) return [];
    const lines = linesOf(text);
    const found: SecretMatch[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as Line;
      // A tail: the body lines right above an END line.
      if (END_PRIVATE.test(text.slice(line.start, line.end))) {
        let first = i;
        if (first > 0 && LAST_LINE.test((lines[first - 1] as Line).word)) first--;
        while (first > 0 && i - first < 100 && keyLine(lines[first - 1] as Line)) first--;
        if (first < i) {
          found.push({
            start: (lines[first] as Line).wordStart,
            end: line.end,
            rule: "private-key",
          });
        }
        continue;
      }
      // A run of PEM-width lines.
      let last = i;
      while (last < lines.length && PEM_WIDTH.test((lines[last] as Line).word)) last++;
      if (last - i >= MIN_RUN && !insidePublicBlock(text, line.start)) {
        found.push({
          start: line.wordStart,
          end: (lines[last - 1] as Line).end,
          rule: "private-key",
        });
        i = last;
      }
    }
    return found;
  },
};
