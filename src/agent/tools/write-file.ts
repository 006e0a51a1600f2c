import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { defineTool, ToolError } from "./define-tool.js";
import { isNotFound, resolveInWorkspace } from "./paths.js";
import { assertReadAndUnchanged, stampOf } from "./read-guard.js";

const input = z.object({
  file_path: z
    .string()
    .describe("Path of the file to write, relative to the workspace root (or absolute inside it)"),
  content: z.string().describe("The complete new content of the file"),
});

export const writeFileTool = defineTool({
  name: "write_file",
  description: [
    "Writes a whole file: creates it (and any missing folders) or replaces all of its content.",
    "Use it for new files and full rewrites; prefer edit_file for changing part of an existing file.",
    "An existing file must have been read with read_file first and not changed since.",
  ].join(" "),
  input,
  summarize: (args) => `write_file ${args.file_path}`,
  async run(args, ctx) {
    const path = await resolveInWorkspace(ctx.root, args.file_path, { forWrite: true });
    const existing = await stat(path.absolute).catch((error: unknown) => {
      if (isNotFound(error)) return null;
      throw error;
    });
    if (existing?.isDirectory()) {
      throw new ToolError(`${path.relative} is a directory; give a file path`);
    }
    let before: Buffer | null = null;
    if (existing) {
      assertReadAndUnchanged(ctx, path.absolute, path.relative, existing);
      before = await readFile(path.absolute);
    } else {
      await mkdir(dirname(path.absolute), { recursive: true });
    }
    const after = Buffer.from(args.content, "utf8");
    await writeFile(path.absolute, after);
    ctx.reads.set(path.absolute, stampOf(await stat(path.absolute)));
    ctx.recordChange({ path: path.relative, before, after });
    const lines = countLines(args.content);
    return `${before ? "Overwrote" : "Created"} ${path.relative} (${lines} lines, ${after.length} bytes)`;
  },
});

function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.match(/\n/g)?.length ?? 0;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
