import { tmpdir } from "node:os";
import { join } from "node:path";
import { type StartedPrefetch, startPrefetch } from "../kernel/repository.js";
import { readEventPayload, workflowToken } from "./early-event.js";
import { jobEnv } from "./job-env.js";

/**
 * The repository's fetch, started by the entry (run.ts) before the rest of
 * the bundle loads: the fetch is the longest way to the agent's first
 * request, and git needs only the event's clone URL and the workflow's
 * token, both at hand before any of the Action's code runs. Loading the
 * bundle (about a hundred milliseconds) then overlaps the fetch. The run
 * uses it when its own reading of the event and inputs asks for this very
 * fetch (runEvent, run-action.ts), and stops it otherwise; every run stops
 * it at its end (main.ts), which costs nothing once it is done.
 */
export interface EarlyFetch extends StartedPrefetch {
  token: string;
  repoSizeKb: number | undefined;
  cacheDir: string;
  stop(): void;
}

interface EventRepository {
  clone_url?: unknown;
  size?: unknown;
  full_name?: unknown;
}

/**
 * Undefined when the run will not fetch with the workflow's token what the
 * event names: an App's token (made through the API), deps mode (its own
 * fetch), no event file, an event without a repository (a schedule's is
 * rebuilt later), or a pull request from a fork (skipped).
 */
export function startEarlyFetch(
  env: Record<string, string | undefined>,
  event: unknown = readEventPayload(env),
): EarlyFetch | undefined {
  const token = workflowToken(env);
  if (!token) return undefined;
  if (env.INPUT_MODE?.trim().toLowerCase() === "deps") return undefined;
  if (!env.GITHUB_EVENT_NAME) return undefined;
  const payload = event as {
    repository?: EventRepository;
    pull_request?: { head?: { repo?: EventRepository }; base?: { repo?: EventRepository } };
  } | null;
  const cloneUrl = payload?.repository?.clone_url;
  if (typeof cloneUrl !== "string" || !cloneUrl) return undefined;
  const head = payload?.pull_request?.head?.repo?.full_name;
  if (head !== undefined && head !== payload?.pull_request?.base?.repo?.full_name) return undefined;
  const size = payload?.repository?.size;
  const repoSizeKb = typeof size === "number" ? size : undefined;
  const cacheDir = join(env.RUNNER_TEMP || tmpdir(), "patchwright", "cache");
  const stopper = new AbortController();
  const prefetch = startPrefetch(
    { cacheDir, envSource: jobEnv(env), signal: stopper.signal },
    { cloneUrl, token, repoSizeKb },
  );
  return {
    ...prefetch,
    token,
    repoSizeKb,
    cacheDir,
    stop: () => stopper.abort(new Error("the run did not use its early fetch")),
  };
}

// One chunk for the entry's early work: the payload, the fetch, and the API reads beside it.
export { readEventPayload } from "./early-event.js";
export { startEarlyReads } from "./early-reads.js";
