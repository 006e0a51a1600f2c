import type { FileHandle } from "node:fs/promises";
import { createRequire, syncBuiltinESMExports } from "node:module";

/**
 * The files a test file opens through node:fs/promises' `open` (the
 * product's journal, transcripts, tools) and leaves open when it ends.
 * Node closes such a handle when it is garbage collected, with a warning
 * (DEP0137) that lands in whichever file runs then, and says a later Node
 * will throw instead; in the App, a path that forgets a handle leaks a
 * descriptor per job. test/shared-file-setup.ts fails the file that left one.
 *
 * `open` is wrapped once per worker; the ES module bindings of
 * node:fs/promises follow through syncBuiltinESMExports, so the product's
 * `import { open }` is counted too. The wrapper keeps an Error per handle,
 * whose stack V8 formats only if it is read, when one is reported.
 */

interface Opened {
  handle: FileHandle;
  path: string;
  where: Error;
}

const opened: Opened[] = [];
let installed = false;

export function trackOpenedFiles(): void {
  if (installed) return;
  installed = true;
  const promises = createRequire(import.meta.url)("node:fs/promises") as {
    open: (path: unknown, ...rest: unknown[]) => Promise<FileHandle>;
  };
  const open = promises.open;
  promises.open = async (path, ...rest) => {
    const where = new Error("opened here");
    const handle = await open(path, ...rest);
    // A file that greps a tree opens thousands: the closed ones are let go now and then.
    if (opened.length >= 1024) keepOpen();
    opened.push({ handle, path: String(path), where });
    return handle;
  };
  syncBuiltinESMExports();
}

/** Drops the handles already closed: a closed FileHandle's fd reads -1 from the moment its close() is called. */
function keepOpen(): void {
  const open = opened.filter(({ handle }) => handle.fd !== -1);
  opened.splice(0, opened.length, ...open);
}

/** The handles opened since the last call that are still open, as path and stack. */
export function takeUnclosedFiles(): string[] {
  keepOpen();
  const left = opened.splice(0);
  return left.map(({ path, where }) => {
    const frames = (where.stack ?? "").split("\n").slice(2, 7).join("\n");
    return `${path}\n${frames}`;
  });
}
