import { ToolError } from "../define-tool.js";

export const LINE_BY_LINE =
  "grep_search matches one line at a time (a line never holds its line break), so this can never match; search for one of the lines, or use run_shell (e.g. `rg -U` or `grep -Pzo`) for a match across lines";

/**
 * Where a pattern is being read (by code point, so that columns count
 * characters as the model wrote them), and the two ways its reading fails:
 * a pattern that is no regular expression, and one that means something
 * JavaScript cannot say. The parser (grep-regex.ts) and its readers of
 * escapes and sets (grep-escapes.ts, grep-set.ts) share one.
 */
export class PatternCursor {
  readonly source: string;
  readonly chars: string[];
  at = 0;

  constructor(source: string) {
    this.source = source;
    this.chars = Array.from(source);
  }

  /** The character at the cursor (or `offset` past it), not taken. */
  peek(offset = 0): string | undefined {
    return this.chars[this.at + offset];
  }

  /** The character at the cursor, taken. */
  next(): string | undefined {
    return this.chars[this.at++];
  }

  rest(): string {
    return this.chars.slice(this.at).join("");
  }

  invalid(reason: string): never {
    throw new ToolError(
      `grep_search: the pattern /${this.source}/ is not a valid regular expression: ${reason}. Fix it and call grep_search again.`,
    );
  }

  unsupported(reason: string): never {
    throw new ToolError(
      `grep_search cannot use the pattern /${this.source}/: ${reason}. grep_search's patterns are JavaScript regular expressions (see its description).`,
    );
  }
}
