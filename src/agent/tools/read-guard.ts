import type { Stats } from "node:fs";
import type { ReadStamp, ToolContext } from "./define-tool.js";
import { ToolError } from "./define-tool.js";

export function stampOf(stats: Stats): ReadStamp {
  return { mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, size: stats.size };
}

/**
 * Refuses to change a file the model has not seen, or has seen in an older
 * state: writing over content it never read (or that a command or a person
 * changed since) would silently destroy work.
 */
export function assertReadAndUnchanged(
  ctx: ToolContext,
  absolute: string,
  relative: string,
  current: Stats,
): void {
  const stamp = ctx.reads.get(absolute);
  if (!stamp) {
    throw new ToolError(
      `${relative} has not been read yet; call read_file on it first, then retry this change`,
    );
  }
  const now = stampOf(current);
  if (
    stamp.mtimeMs !== now.mtimeMs ||
    stamp.ctimeMs !== now.ctimeMs ||
    stamp.ino !== now.ino ||
    stamp.size !== now.size
  ) {
    throw new ToolError(
      `${relative} changed on disk since you last read it (by a command or someone else); call read_file again and redo the change against the current content`,
    );
  }
}
