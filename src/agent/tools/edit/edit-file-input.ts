import * as z from "../../../zod.js";

/**
 * edit_file's input and the limits it names, shared by the tool's declaration
 * and its work (loaded at its first call, define-tool.ts runOnFirstCall).
 */

export const editFileInput = z.object({
  file_path: z
    .string()
    .check(
      z.describe(
        "Path of the file to edit, relative to the workspace root (or absolute inside it)",
      ),
    ),
  old_string: z
    .string()
    .check(
      z.describe(
        "Exact text to replace, copied from the file without read_file's line-number prefixes; include enough surrounding lines to make it unique",
      ),
    ),
  new_string: z
    .string()
    .check(z.describe("Text to put in its place (must differ from old_string)")),
  replace_all: z
    .optional(z.boolean())
    .check(
      z.describe(
        "Replace every occurrence of old_string instead of requiring exactly one (default false)",
      ),
    ),
});

export type EditFileInput = z.infer<typeof editFileInput>;
