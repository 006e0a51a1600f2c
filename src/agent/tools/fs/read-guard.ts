import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { join } from "node:path";
import type { ChangeRecord, ReadStamp, ShellChange, ToolContext } from "../define-tool.js";
import { ToolError } from "../define-tool.js";
import { shellQuote } from "./text-file.js";

/** What the model saw of a file: its bytes (hashed) and its mode. */
export function stampOf(content: Buffer, stats: Stats): ReadStamp {
  return { hash: createHash("sha256").update(content).digest("hex"), mode: stats.mode };
}

/**
 * Refuses to change a file the model has not seen, or has seen in an older
 * state: writing over content it never read (or that a command or a person
 * changed since) would silently destroy work. A command's change counts
 * until the file is read again, even one that a later command undid.
 */
export function assertReadAndUnchanged(
  ctx: ToolContext,
  absolute: string,
  relative: string,
  current: { content: Buffer; stats: Stats },
): void {
  const stamp = ctx.reads.get(absolute);
  if (!stamp) {
    throw new ToolError(
      `${relative} has not been read yet; call read_file on it first, then retry this change`,
    );
  }
  if (stamp.shellChange) throw new ToolError(shellChangeMessage(relative, stamp.shellChange));
  const now = stampOf(current.content, current.stats);
  if (now.hash !== stamp.hash) {
    throw new ToolError(
      `${relative} changed on disk since you last read it (its content changed, by a command or someone else); call read_file again and redo the change against the current content`,
    );
  }
  if (now.mode !== stamp.mode) {
    throw new ToolError(
      `${relative} changed on disk since you last read it (its mode changed from ${octal(stamp.mode)} to ${octal(now.mode)}, by a command or someone else); call read_file again, then retry this change`,
    );
  }
}

/**
 * The stamp after read_file showed lines `from`..`to` of `total`: reads of
 * the same content add up, so a file read in parts is seen whole in the end.
 */
export function readStamp(
  previous: ReadStamp | undefined,
  now: ReadStamp,
  shown: { from: number; to: number; total: number },
): ReadStamp {
  const same = previous && !previous.shellChange && previous.hash === now.hash;
  if (same && !previous.partial) return now;
  const seen = mergeRanges([
    ...(same ? (previous.partial?.seen ?? []) : []),
    [shown.from, shown.to],
  ]);
  const whole = seen.length === 1 && (seen[0]?.[0] ?? 1) <= 1 && (seen[0]?.[1] ?? 0) >= shown.total;
  return whole || shown.total === 0 ? now : { ...now, partial: { total: shown.total, seen } };
}

/**
 * write_file replaces every line: a model that saw only some of them would
 * silently drop the rest.
 */
export function assertSeenWhole(stamp: ReadStamp | undefined, relative: string): void {
  const partial = stamp?.partial;
  if (!partial) return;
  const ranges = partial.seen.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(", ");
  const gap = (partial.seen[0]?.[0] ?? 1) > 1 ? 1 : (partial.seen[0]?.[1] ?? 0) + 1;
  throw new ToolError(
    ranges === ""
      ? `write_file replaces all of ${relative}, but you have not seen all of it as it is now; call read_file on it (the whole file), or change just a part with edit_file`
      : `write_file replaces all of ${relative}, but you have seen only lines ${ranges} of its ${partial.total} lines, so the rest would be lost. Read the rest first (read_file with offset ${gap}), or change just the part you saw with edit_file`,
  );
}

function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [from, to] of sorted) {
    const last = out.at(-1);
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/**
 * The refusal for a file the model read that is gone now. Said only when it
 * was read: "does not exist" alone would hide that the model's copy is of a
 * file someone deleted on purpose.
 */
export function deletedSinceRead(ctx: ToolContext, absolute: string, relative: string) {
  const stamp = ctx.reads.get(absolute);
  if (!stamp) return null;
  const by = stamp.shellChange ? ` by the run_shell command \`${stamp.shellChange.command}\`` : "";
  const movedTo = stamp.shellChange?.movedTo;
  if (movedTo) {
    return new ToolError(
      `${relative} was moved to ${movedTo}${by} after you read it; call read_file on ${movedTo} and make the change there`,
    );
  }
  const q = shellQuote(relative);
  return new ToolError(
    `${relative} was deleted${by} after you read it, so there is no file to edit. If it should still exist, restore it with run_shell (e.g. \`git checkout -- ${q}\`) or create it with write_file; list_files shows what is there now`,
  );
}

/**
 * Marks every file a command changed that the model had seen as changed by
 * it, until the file is read again. Returns those files, for the command's
 * result to name.
 */
export function markShellChanges(
  ctx: ToolContext,
  command: string,
  changes: readonly ChangeRecord[],
): Array<{ path: string; change: ShellChange }> {
  const marked: Array<{ path: string; change: ShellChange }> = [];
  for (const record of changes) {
    const absolute = join(ctx.root, record.path);
    const stamp = ctx.reads.get(absolute);
    if (!stamp) continue;
    const movedTo =
      record.after === null
        ? changes.find((c) => c.before === null && record.before && c.after?.equals(record.before))
            ?.path
        : undefined;
    const change: ShellChange = {
      command: shortCommand(command),
      kind:
        record.after === null
          ? "deleted"
          : record.before === null
            ? "created"
            : record.before.equals(record.after)
              ? "mode"
              : "content",
      ...(record.modes ? { modes: record.modes } : {}),
      ...(movedTo ? { movedTo } : {}),
    };
    ctx.reads.set(absolute, { ...stamp, shellChange: change });
    marked.push({ path: record.path, change });
  }
  return marked;
}

/** How one change reads in a sentence: "content changed", "deleted", ... */
export function describeShellChange(change: ShellChange): string {
  switch (change.kind) {
    case "content":
      return "content changed";
    case "deleted":
      return change.movedTo ? `moved to ${change.movedTo}` : "deleted";
    case "created":
      return "deleted and created again";
    case "mode":
      return change.modes
        ? `mode changed from ${change.modes.before} to ${change.modes.after}`
        : "mode changed";
  }
}

function shellChangeMessage(relative: string, change: ShellChange): string {
  return `${relative} is stale: the run_shell command \`${change.command}\` changed it after you read it (${describeShellChange(change)}), so what you saw is no longer what it holds. Call read_file on it again, then redo the change against its current content`;
}

function shortCommand(command: string): string {
  const line = command.trim().split("\n")[0] ?? "";
  return line.length > 80 || command.trim().includes("\n") ? `${line.slice(0, 80)}...` : line;
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(3, "0");
}
