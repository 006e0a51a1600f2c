import { readFileSync } from "node:fs";

/**
 * What the entry's early work (early-fetch.ts, early-reads.ts) reads before
 * the rest of the bundle loads: the event's payload, once, and the token
 * both use; and which pull_request actions start a job (events.ts says so
 * to the workflow).
 */

export const PULL_REQUEST_ACTIONS = ["opened", "synchronize", "ready_for_review"] as const;

/** The event's payload as the runner wrote it, or undefined (no file, not JSON). */
export function readEventPayload(env: Record<string, string | undefined>): unknown {
  if (!env.GITHUB_EVENT_PATH) return undefined;
  try {
    return JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The workflow's token, when the run will use it: undefined when an App's
 * token is to be made through the API instead (app_id, private_key).
 */
export function workflowToken(env: Record<string, string | undefined>): string | undefined {
  const token = env.INPUT_GITHUB_TOKEN?.trim();
  if (!token || env.INPUT_APP_ID?.trim() || env.INPUT_PRIVATE_KEY?.trim()) return undefined;
  return token;
}
