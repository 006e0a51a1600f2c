import { lstatSync, mkdirSync } from "node:fs";
import nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * V8's compile cache for the bundle (Node 22.1 and later): compiling the
 * bundle's modules is a good part of the Action's start, and with the cache
 * a run reads the code its last run compiled instead. Node 20 has no cache
 * and simply compiles.
 *
 * Where: NODE_COMPILE_CACHE when the workflow sets it (Node's own setting),
 * else a folder of this user's under the temporary directory, which a
 * self-hosted runner keeps from job to job (RUNNER_TEMP is emptied after
 * each job, and a GitHub-hosted runner is a new machine each time, so the
 * first run there compiles as before). The cache cannot be shipped in dist/:
 * Node before 24.12 keys it by the files' absolute paths, which differ on
 * each runner. The code in a cache file runs as this process, so a folder
 * that another user owns or may write to is not used.
 *
 * A cache that cannot be used costs nothing but the compile: Node checks
 * each file against the source and the V8 version, and never throws here.
 */

type EnableCompileCache = (directory?: string) => { status: number; message?: string };

/** module.constants.compileCacheStatus: ENABLED and ALREADY_ENABLED. */
const ENABLED = new Set([1, 2]);

export interface CompileCacheResult {
  /** The folder used, or undefined with the reason in `skipped`. */
  directory?: string | undefined;
  skipped?: string | undefined;
}

export function startCompileCache(env: Record<string, string | undefined>): CompileCacheResult {
  const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (!enable) return { skipped: "this Node has no compile cache" };
  try {
    if (env.NODE_COMPILE_CACHE) return outcome(enable(), env.NODE_COMPILE_CACHE);
    const directory = join(tmpdir(), `patchwright-compile-cache-${process.getuid?.() ?? "user"}`);
    // Ours to make first: Node 24.9 hangs on a folder it cannot create (under /proc, say).
    const unsafe = unsafeFolder(directory);
    if (unsafe) return { skipped: unsafe };
    return outcome(enable(directory), directory);
  } catch (error) {
    return { skipped: error instanceof Error ? error.message : String(error) };
  }
}

function outcome(result: { status: number; message?: string }, directory: string) {
  return ENABLED.has(result.status)
    ? { directory }
    : { skipped: result.message ?? "Node did not enable the compile cache" };
}

/** Why the folder must not hold our compiled code, or undefined when it is ours alone. */
function unsafeFolder(directory: string): string | undefined {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const stat = lstatSync(directory);
  if (!stat.isDirectory()) return `${directory} is not a folder`;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `${directory} belongs to another user`;
  if (uid !== undefined && (stat.mode & 0o022) !== 0) return `others may write to ${directory}`;
  return undefined;
}
