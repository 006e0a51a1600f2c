import * as z from "../../../zod.js";

/**
 * grep_search's input and the limits it names, shared by the tool's declaration
 * and its work (loaded at its first call, define-tool.ts runOnFirstCall).
 */

export const grepSearchInput = z.object({
  pattern: z
    .string()
    .check(
      z.minLength(1),
      z.describe(
        'JavaScript regular expression matched against each line, e.g. "function\\s+\\w+", "TODO|FIXME", "(?:get|post)\\(", "(?<=require\\()\\S+"',
      ),
    ),
  path: z
    .optional(z.string())
    .check(
      z.describe(
        "Folder or file to search, relative to the workspace root (default: the whole workspace)",
      ),
    ),
  include: z
    .optional(z.string())
    .check(
      z.describe('Only search files whose names match this glob, e.g. "*.ts" or "*.{ts,tsx}"'),
    ),
  case_insensitive: z
    .optional(z.boolean())
    .check(
      z.describe(
        "Match letters in either case (default false); use this rather than an inline (?i)",
      ),
    ),
});

export type GrepSearchInput = z.infer<typeof grepSearchInput>;
