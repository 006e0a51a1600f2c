/**
 * read_file shows lines as `    42 | text`. Models copy that prefix into
 * edit strings; blank lines may have lost the space after the bar.
 */
const PREFIX = /^ *\d{1,9} \|(?: |$)/;

/** The lines of `text`, without the empty one after a final line break. */
function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}

export function countPrefixedLines(text: string): number {
  return linesOf(text).filter((line) => PREFIX.test(line)).length;
}

/** True when every line of `text` starts with read_file's prefix. */
export function allLinesPrefixed(text: string): boolean {
  return text !== "" && linesOf(text).every((line) => PREFIX.test(line));
}

/** Removes the prefix from every line that carries it. */
export function stripPrefixes(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(PREFIX, ""))
    .join("\n");
}

/** The first prefix in `text`, as shown, for messages. */
export function firstPrefix(text: string): string {
  for (const line of text.split("\n")) {
    const match = PREFIX.exec(line);
    if (match) return match[0];
  }
  return "";
}

/**
 * True when every non-blank line of a whole-file `content` carries the prefix
 * with numbers counting up: a copy of read_file output, not a file's text.
 */
export function looksLikeReadOutput(content: string): boolean {
  const lines = linesOf(content).filter((line) => line.trim() !== "");
  if (lines.length === 0) return false;
  let previous = 0;
  for (const line of lines) {
    const match = PREFIX.exec(line);
    if (!match) return false;
    const number = Number.parseInt(match[0], 10);
    if (number <= previous) return false;
    previous = number;
  }
  return true;
}
