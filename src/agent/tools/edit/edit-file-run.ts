import { readFile, stat, writeFile } from "node:fs/promises";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { type ToolContext, ToolError } from "../define-tool.js";
import { notFoundError } from "../fs/not-found.js";
import { isNotFound, resolveInWorkspace } from "../fs/paths.js";
import { assertReadAndUnchanged, deletedSinceRead, stampOf } from "../fs/read-guard.js";
import { decodeTextFile, MAX_TEXT_FILE_BYTES, tooLargeMessage } from "../fs/text-file.js";
import { lfView } from "./edit-endings.js";
import type { EditFileInput } from "./edit-file-input.js";
import { planEdit } from "./edit-plan.js";

const MAX_DIFF_LINES = 60;

/** edit_file's work, loaded at its first call (define-tool.ts runOnFirstCall). */
export async function editFileRun(args: EditFileInput, ctx: ToolContext): Promise<string> {
  if (args.old_string === "") {
    throw new ToolError(
      "old_string is empty; copy the lines to change from read_file's output into old_string. To create a file or replace all of it, use write_file",
    );
  }
  const path = await resolveInWorkspace(ctx.root, args.file_path, { forWrite: true });
  const current = await stat(path.absolute).catch(async (error: unknown) => {
    if (isNotFound(error)) {
      throw (
        deletedSinceRead(ctx, path.absolute, path.relative) ??
        (await notFoundError(ctx, path, args.file_path, "edit"))
      );
    }
    throw error;
  });
  if (current.isDirectory()) {
    throw new ToolError(
      `${path.relative} is a directory; give the path of a file in it (list_files with path "${path.relative}" shows them)`,
    );
  }
  // Before the read check: "read it first" would be a dead end for a file read_file refuses.
  if (current.size > MAX_TEXT_FILE_BYTES) {
    throw new ToolError(tooLargeMessage(path.relative, current.size, "edit"));
  }
  const before = await readFile(path.absolute);
  const text = decodeTextFile(before, path.relative, "edit");
  assertReadAndUnchanged(ctx, path.absolute, path.relative, { content: before, stats: current });

  const plan = planEdit(
    text,
    {
      oldString: args.old_string,
      newString: args.new_string,
      replaceAll: args.replace_all ?? false,
    },
    path.relative,
  );
  const after = Buffer.from(plan.updated, "utf8");
  await writeFile(path.absolute, after);
  // The model saw its own change; what it had not seen before, it still has not.
  const seenBefore = ctx.reads.get(path.absolute)?.partial;
  const written = stampOf(after, await stat(path.absolute));
  ctx.reads.set(
    path.absolute,
    seenBefore ? { ...written, partial: { total: seenBefore.total, seen: [] } } : written,
  );
  ctx.recordChange({ path: path.relative, before, after });

  const count = plan.count;
  const head = `Edited ${path.relative}: replaced ${count} occurrence${count === 1 ? "" : "s"}.`;
  const notes = plan.notes.map((note) => `Note: ${note}.`);
  const shown = (t: string) => lfView(t).text;
  return [head, ...notes, shortDiff(path.relative, shown(text), shown(plan.updated))].join("\n");
}

function shortDiff(relative: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(
    `a/${relative}`,
    `b/${relative}`,
    before,
    after,
    undefined,
    undefined,
    {
      context: 2,
      headerOptions: FILE_HEADERS_ONLY,
    },
  );
  const lines = patch.trimEnd().split("\n");
  if (lines.length <= MAX_DIFF_LINES) return lines.join("\n");
  return [
    ...lines.slice(0, MAX_DIFF_LINES),
    `[... ${lines.length - MAX_DIFF_LINES} more diff lines not shown]`,
  ].join("\n");
}
