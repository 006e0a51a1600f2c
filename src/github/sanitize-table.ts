/**
 * GFM tables. GitHub splits a row at its pipes before it reads anything in
 * it, then reads each cell on its own, so no code span, comment or tag
 * reaches across a pipe there. The same line outside a table is read whole.
 * The scanner cannot always know which reading GitHub chose, so it takes
 * whatever either reading hides: a code span crossing a pipe is prose, and a
 * comment crossing one is removed (keeping the pipes, so the cells after it
 * stay in their columns).
 */

/** A pipe that splits a row: one after a backslash stays in its cell. */
const CELL_SEPARATOR = /(?<!\\)\|/;
const NEXT_CELL_SEPARATOR = /(?<!\\)\|/g;
const CELL_SEPARATORS_AND_LINE_BREAKS = /(?<!\\)\||\n/g;
/** What may stand before an HTML block's `<` on its line: indentation, quote and list markers. */
const BLOCK_PREFIX = /^(?:[ \t]*(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t])))*[ \t]*/;
const BLANK_LINE = /\n[ \t]*\n/g;

/** A code span with a pipe in it is two cells' text in a table row, so not code there. */
export function crossesCell(span: string): boolean {
  return CELL_SEPARATOR.test(span);
}

interface Line {
  start: number;
  end: number;
  /** Where markup would open the line (an HTML block) rather than sit in it. */
  blockStart: number;
  hasSeparator: boolean;
}

export interface TableReader {
  /**
   * End of a comment opened at `at` that no `-->` closes. As an HTML block
   * it hides the rest of the text; inline, GitHub shows it as text, and it
   * is removed anyway (the safe side) to the end of the text, except in a
   * table row: cells are read one by one, so it stops at its cell's end.
   */
  unterminatedCommentEnd(at: number): number;
  /**
   * What stays of markup removed from `at` to `end` in a table row: the cell
   * separators and line breaks it covered, up to the table's end (a blank
   * line), and a paragraph break if it ran past that.
   */
  keptSeparators(at: number, end: number): string;
}

/** Reads rows for positions taken in order (each line and blank line is looked at once). */
export function tableReader(text: string): TableReader {
  let line: Line = { start: 0, end: -1, blockStart: 0, hasSeparator: false };
  let blankLine = -2;
  const lineAt = (at: number): Line => {
    if (at > line.end) {
      const start = text.lastIndexOf("\n", at - 1) + 1;
      const newline = text.indexOf("\n", at);
      const end = newline < 0 ? text.length : newline;
      const content = text.slice(start, end);
      const prefix = BLOCK_PREFIX.exec(content)?.[0].length ?? 0;
      line = { start, end, blockStart: start + prefix, hasSeparator: crossesCell(content) };
    }
    return line;
  };
  // Markup on a line with a cell separator, not opening the line (which
  // would start an HTML block: that ends a table and is not split into cells).
  const insideRow = (at: number): boolean => {
    const { blockStart, hasSeparator } = lineAt(at);
    return hasSeparator && at !== blockStart;
  };
  const tableEnd = (from: number): number => {
    if (blankLine !== -1 && blankLine < from) {
      BLANK_LINE.lastIndex = from;
      blankLine = BLANK_LINE.exec(text)?.index ?? -1;
    }
    return blankLine < 0 ? text.length : blankLine;
  };
  return {
    unterminatedCommentEnd(at) {
      if (!insideRow(at)) return text.length;
      NEXT_CELL_SEPARATOR.lastIndex = at;
      const separator = NEXT_CELL_SEPARATOR.exec(text)?.index ?? text.length;
      return Math.min(separator, lineAt(at).end);
    },
    keptSeparators(at, end) {
      if (!insideRow(at)) return "";
      const tableStop = tableEnd(at);
      const covered = text.slice(at, Math.min(end, tableStop));
      const kept = covered.match(CELL_SEPARATORS_AND_LINE_BREAKS)?.join("") ?? "";
      return end > tableStop ? `${kept}\n\n` : kept;
    },
  };
}
