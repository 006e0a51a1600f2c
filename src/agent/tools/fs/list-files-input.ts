import * as z from "../../../zod.js";

/**
 * list_files's input and the limits it names, shared by the tool's declaration
 * and its work (loaded at its first call, define-tool.ts runOnFirstCall).
 */

export const MAX_LISTED_FILES = 200;

export const listFilesInput = z.object({
  pattern: z
    .string()
    .check(
      z.minLength(1),
      z.describe(
        'Glob such as "**/*.ts", "src/**/*.test.ts" or "*.{json,yml}"; a pattern without "/" matches file names at any depth',
      ),
    ),
  path: z
    .optional(z.string())
    .check(
      z.describe(
        "Folder to search in, relative to the workspace root (default: the whole workspace)",
      ),
    ),
});

export type ListFilesInput = z.infer<typeof listFilesInput>;
