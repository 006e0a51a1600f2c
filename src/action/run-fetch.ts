import { type StartedPrefetch, startPrefetch } from "../kernel/repository.js";
import type { EarlyFetch } from "./early-fetch.js";

/**
 * The repository's fetch for this run: the entry's (early-fetch.ts) when it
 * is this very fetch (same URL, token, size and cache), else one started
 * now; the entry's is stopped then. Cancelling the run stops it too.
 */
export function startFetch(
  early: EarlyFetch | undefined,
  signal: AbortSignal | undefined,
  wanted: {
    cacheDir: string;
    envSource: Record<string, string | undefined>;
    cloneUrl: string;
    token: string;
    repoSizeKb: number | undefined;
  },
): StartedPrefetch & { stop(): void } {
  if (
    early &&
    early.cloneUrl === wanted.cloneUrl &&
    early.token === wanted.token &&
    early.repoSizeKb === wanted.repoSizeKb &&
    early.cacheDir === wanted.cacheDir
  ) {
    signal?.addEventListener("abort", () => early.stop(), { once: true });
    return early;
  }
  early?.stop();
  const stop = new AbortController();
  const prefetch = startPrefetch(
    {
      cacheDir: wanted.cacheDir,
      envSource: wanted.envSource,
      signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
    },
    { cloneUrl: wanted.cloneUrl, token: wanted.token, repoSizeKb: wanted.repoSizeKb },
  );
  return { ...prefetch, stop: () => stop.abort() };
}

/** Resolves when the first of `a` and `b` settles, or after `ms`; never rejects. */
export async function firstOf(a: Promise<unknown>, b: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((done) => {
    timer = setTimeout(done, ms);
  });
  await Promise.race([a, b, waited]).catch(() => {});
  clearTimeout(timer);
}
