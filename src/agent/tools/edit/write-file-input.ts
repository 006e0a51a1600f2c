import * as z from "../../../zod.js";

/**
 * write_file's input and the limits it names, shared by the tool's declaration
 * and its work (loaded at its first call, define-tool.ts runOnFirstCall).
 */

export const writeFileInput = z.object({
  file_path: z
    .string()
    .check(
      z.describe(
        "Path of the file to write, relative to the workspace root (or absolute inside it)",
      ),
    ),
  content: z.string().check(z.describe("The complete new content of the file")),
});

export type WriteFileInput = z.infer<typeof writeFileInput>;
