import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";

/**
 * Where a cache's job worktrees go. Test suites run inside them, and some
 * treat a dot segment anywhere in a path as hidden: express's `send`
 * answers 404 for a file under `~/.cache/...`, so its own tests fail there.
 * So: `<cache>/work` when that path has no dot segment, otherwise a folder of
 * this cache's own under the system temp dir. The mirrors stay in the cache.
 */
export function defaultWorkRoot(cacheDir: string, tempDir: string = tmpdir()): string {
  const cache = resolve(cacheDir);
  const inCache = join(cache, "work");
  if (!hasDotSegment(inCache)) return inCache;
  const base = hasDotSegment(resolve(tempDir)) ? "/tmp" : resolve(tempDir);
  // One folder per cache, so one cache's cleanup never takes another's worktrees.
  const id = createHash("sha256").update(cache).digest("hex").slice(0, 12);
  return join(base, "patchwright-work", id);
}

export function hasDotSegment(path: string): boolean {
  return path.split(sep).some((segment) => segment.startsWith("."));
}
