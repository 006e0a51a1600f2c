import * as z from "../../../zod.js";
import { MAX_OUTPUT_CHARS } from "../truncate.js";

/**
 * read_file's input and the limits it names, shared by the tool's declaration
 * and its work (loaded at its first call, define-tool.ts runOnFirstCall).
 */

export const DEFAULT_READ_LIMIT = 2000;
export const MAX_LINE_CHARS = 2000;
/**
 * Lines stop before the registry's output cap would cut the middle out, and
 * always on a line boundary, so the footer's range and offset are the truth.
 */
export const MAX_SHOWN_CHARS = MAX_OUTPUT_CHARS - 1_000;

export const readFileInput = z.object({
  file_path: z
    .string()
    .check(z.describe("Path of the file, relative to the workspace root (or absolute inside it)")),
  offset: z
    .optional(z.number().check(z.int(), z.gte(1)))
    .check(z.describe("1-based line number to start reading at (default 1)")),
  limit: z
    .optional(z.number().check(z.int(), z.gte(1)))
    .check(z.describe(`Maximum number of lines to return (default ${DEFAULT_READ_LIMIT})`)),
});

export type ReadFileInput = z.infer<typeof readFileInput>;
