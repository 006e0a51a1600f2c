import { existsSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";

/**
 * V8's compile cache for the bundle (Node 22.1 and later): compiling the
 * bundle's modules is a good part of the Action's start, and with the cache
 * a run reads the code its last run compiled instead. Node 20 has no cache
 * and simply compiles.
 *
 * Where: NODE_COMPILE_CACHE when the workflow sets it (Node's own setting),
 * else a folder of this user's under the temporary directory, which a
 * self-hosted runner keeps from job to job (RUNNER_TEMP is emptied after
 * each job).
 *
 * When: from the second run on a machine. The first one makes the folder
 * and writes nothing: Node makes each module's cache entry as it compiles
 * it, before the first model request, and what it compiles by then is of
 * no use to the next run, which compiles the job's modules whole
 * (loadEagerly) under other V8 flags and so refuses those entries. A first
 * run with the cache cost 648M instructions to the first model request,
 * without it 606M; the second run, compiling whole and writing, 741-761M
 * either way; the third and later ones read and cost 469M (Node 24.9,
 * cachegrind, bench/action.ts's workflow_dispatch run). So the second run
 * compiles whole at once, and a machine that runs the Action once (a
 * GitHub-hosted runner, an ephemeral self-hosted one) never writes a cache.
 * Nor do a GitHub-hosted runner's later runs (RUNNER_ENVIRONMENT, which
 * the runner sets): each job there is a new machine, and a job that runs
 * the Action twice would pay for a third run that never comes.
 *
 * The cache cannot be shipped in dist/:
 * Node before 24.12 keys it by the files' absolute paths, which differ on
 * each runner. The code in a cache file runs as this process, so a folder
 * that another user owns or may write to is not used.
 *
 * A cache that cannot be used costs nothing but the compile: Node checks
 * each file against the source and the V8 version, and never throws here.
 */

type EnableCompileCache = (directory?: string) => { status: number; message?: string };
/** module.getCompileCacheDir (Node 22.8): this Node version's folder inside the cache's. */
type GetCompileCacheDir = () => string | undefined;

/** module.constants.compileCacheStatus: ENABLED and ALREADY_ENABLED. */
const ENABLED = new Set([1, 2]);

export interface CompileCacheResult {
  /** The folder used, or undefined with the reason in `skipped`. */
  directory?: string | undefined;
  skipped?: string | undefined;
  /** Whether the job's modules are compiled whole as they load (loadEagerly). */
  eager?: boolean | undefined;
}

export function startCompileCache(env: Record<string, string | undefined>): CompileCacheResult {
  const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (!enable) return { skipped: "this Node has no compile cache" };
  try {
    if (env.NODE_COMPILE_CACHE) {
      // Node enabled it as it started; whole once it holds this Node's entries.
      return enabled(enable(), env.NODE_COMPILE_CACHE, () => hasEntries(versionFolder()));
    }
    if (env.RUNNER_ENVIRONMENT === "github-hosted") {
      return { skipped: "a GitHub-hosted runner is a new machine for each job" };
    }
    const directory = join(tmpdir(), `patchwright-compile-cache-${process.getuid?.() ?? "user"}`);
    const firstRun = !existsSync(directory);
    // Ours to make first: Node 24.9 hangs on a folder it cannot create (under /proc, say).
    const unsafe = unsafeFolder(directory);
    if (unsafe) return { skipped: unsafe };
    if (firstRun) return { skipped: "the first run on this machine (the next one writes it)" };
    return enabled(enable(directory), directory, () => true);
  } catch (error) {
    return { skipped: error instanceof Error ? error.message : String(error) };
  }
}

/** The cache in `directory` when Node enabled it; `eager` is asked only then (the version folder is made by the enabling). */
function enabled(
  result: { status: number; message?: string },
  directory: string,
  eager: () => boolean,
): CompileCacheResult {
  if (!ENABLED.has(result.status)) {
    return { skipped: result.message ?? "Node did not enable the compile cache" };
  }
  return { directory, eager: eager() };
}

/** This Node version's folder inside the cache's (Node makes it as it enables the cache). */
function versionFolder(): string | undefined {
  return (nodeModule as { getCompileCacheDir?: GetCompileCacheDir }).getCompileCacheDir?.();
}

/** Node writes into this version's folder at exit. */
function hasEntries(folder: string | undefined): boolean {
  if (folder === undefined) return false;
  try {
    return readdirSync(folder).length > 0;
  } catch {
    return false;
  }
}

/**
 * Loads the modules `load` imports with every function compiled as its
 * module is, when the cache is on (`eager`). V8 compiles a function when it is
 * first called, and Node's cache keeps what was compiled as the module
 * loaded (its top-level code), so each run compiled the same functions
 * again. Compiled with their module, they are in the cache, and a warm run
 * reads them (measured on the 2-core VM, Node 24, the job's modules this
 * way against the bundle before, interleaved runs, five rounds: 14-42 ms
 * less main-thread CPU to the first model request for a workflow_dispatch
 * and an issue_comment together).
 *
 * Only with the cache: without it compiling every function costs more than
 * compiling those the run calls (a cold issue_comment run 21-58 ms later),
 * and a run that writes the cache pays that once (startCompileCache says
 * when). And only V8's `lazy` flag, only while the modules load: a
 * built-in loaded under another flag compiles from source (V8 refuses the
 * code cache Node ships for them too); `--no-lazy` set from the start made
 * runs slower (docs/architecture.md). So `before` loads, first, what of
 * Node's own the modules load as they do (run.ts says which): the early
 * fetch's modules loaded this way without their built-ins loaded first
 * cost 67M instructions more to the first model request, not 10M less.
 */
export async function loadEagerly<T>(
  cache: CompileCacheResult,
  load: () => Promise<T>,
  before: () => void = () => {},
): Promise<T> {
  if (!cache.eager) return load();
  before();
  setFlagsFromString("--no-lazy");
  try {
    return await load();
  } finally {
    setFlagsFromString("--lazy");
  }
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
