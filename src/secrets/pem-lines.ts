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

const FULL_LINE = /^[A-Za-z0-9+/]{60,76}={0,2}$/;
/** The last line of a body, right above its END line: as short as one group of four. */
const LAST_LINE = /^[A-Za-z0-9+/]{2,76}={0,2}$/;
const HEADER = /^(?:Proc-Type|DEK-Info):/;
const END_PRIVATE = /-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/g;
const BEGIN = /-----BEGIN([ A-Z0-9]*)-----/g;
/** Shorter runs are too likely to be something else wrapped at 64 (and too short to use). */
const MIN_RUN = 4;

/** The last word of the line that ends at `end` (a log's timestamp or a line number before it). */
function lastWord(text: string, lineStart: number, end: number): { start: number; word: string } {
  const line = text.slice(lineStart, end).replace(/\s+$/, "");
  const word = line.split(/[\s|]+/).pop() ?? "";
  return { start: lineStart + line.length - word.length, word };
}

const lineStartBefore = (text: string, at: number) => text.lastIndexOf("\n", at - 1) + 1;

/** Whether the last BEGIN before `at` opens something public that is still open there. */
function insidePublicBlock(text: string, at: number): boolean {
  const from = Math.max(0, at - 20_000);
  let last: RegExpExecArray | undefined;
  for (const match of text.slice(from, at).matchAll(BEGIN)) last = match;
  if (!last || /PRIVATE/.test(last[1] ?? "")) return false;
  return !/-----END /.test(text.slice(from + last.index, at));
}

/** The body lines right above each END line, walked back line by line. */
function tails(text: string): SecretMatch[] {
  const found: SecretMatch[] = [];
  for (const end of text.matchAll(END_PRIVATE)) {
    let lineStart = lineStartBefore(text, end.index);
    let first: number | undefined;
    for (let n = 0; lineStart > 0 && n < 100; n++) {
      const previous = lineStartBefore(text, lineStart - 1);
      const { start, word } = lastWord(text, previous, lineStart - 1);
      const fits = n === 0 ? LAST_LINE.test(word) : FULL_LINE.test(word) || HEADER.test(word);
      if (!fits) break;
      first = start;
      lineStart = previous;
    }
    if (first !== undefined) {
      found.push({ start: first, end: end.index + end[0].length, rule: "private-key" });
    }
  }
  return found;
}

const isBase64 = (code: number) =>
  (code >= 65 && code <= 90) ||
  (code >= 97 && code <= 122) ||
  (code >= 48 && code <= 57) ||
  code === 43 ||
  code === 47;

/**
 * Where a word of PEM width (64, or OpenSSH's 70) that ends the line at
 * `lineEnd` starts, or -1. Walked back by hand: a regex would retry inside
 * every long base64 run of a minified file.
 */
function pemWordStart(text: string, lineEnd: number): number {
  const end = text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
  let at = end;
  while (at > 0 && end - at <= 70 && isBase64(text.charCodeAt(at - 1))) at--;
  const length = end - at;
  const alone = at === 0 || !(isBase64(text.charCodeAt(at - 1)) || text.charCodeAt(at - 1) === 61);
  return (length === 64 || length === 70) && alone ? at : -1;
}

/** Runs of lines that end in PEM-width words, one right under the other. */
function runs(text: string): SecretMatch[] {
  const found: SecretMatch[] = [];
  let run: { start: number; end: number; lines: number } | undefined;
  const close = () => {
    if (run && run.lines >= MIN_RUN && !insidePublicBlock(text, run.start)) {
      found.push({ start: run.start, end: run.end, rule: "private-key" });
    }
    run = undefined;
  };
  for (let lineEnd = text.indexOf("\n"); ; lineEnd = text.indexOf("\n", lineEnd + 1)) {
    const end = lineEnd < 0 ? text.length : lineEnd;
    const start = pemWordStart(text, end);
    if (start < 0) close();
    else if (run) {
      run.end = end;
      run.lines++;
    } else run = { start, end, lines: 1 };
    if (lineEnd < 0) break;
  }
  close();
  return found;
}

export const PEM_LINES_RULE: SecretRule = {
  id: "private-key",
  find: (text: string): SecretMatch[] => [...tails(text), ...runs(text)],
};
