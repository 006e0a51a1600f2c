import { tmpdir } from "node:os";
import type { Person } from "../requests/request.js";
import { ActionFailure } from "./failure.js";

/**
 * What the runner tells a step through its environment (GITHUB_*, RUNNER_*),
 * read in one place so the rest of the Action takes plain values.
 */
export interface RunnerContext {
  eventName: string;
  eventPath: string;
  /** owner/name */
  repository: string | undefined;
  apiUrl: string;
  serverUrl: string;
  /** The run and its attempt: a re-run of a failed job is a new request. */
  deliveryId: string;
  runUrl: string | undefined;
  actor: Person | undefined;
  /** A per-job scratch directory the runner empties afterwards. */
  tempDir: string;
  /** The branch a schedule runs on: the default branch. */
  refName: string | undefined;
}

/** The step is not running under Actions (or the runner left out what every step gets). */
export class RunnerContextError extends ActionFailure {
  override name = "RunnerContextError";
}

export function readRunnerContext(env: Record<string, string | undefined>): RunnerContext {
  const eventName = env.GITHUB_EVENT_NAME;
  const eventPath = env.GITHUB_EVENT_PATH;
  if (!eventName || !eventPath) {
    throw new RunnerContextError(
      "GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set: run patchwright as a step of a GitHub Actions workflow (see examples/)",
    );
  }
  const serverUrl = (env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, "");
  const runId = env.GITHUB_RUN_ID;
  const repository = env.GITHUB_REPOSITORY || undefined;
  const actorId = Number(env.GITHUB_ACTOR_ID);
  return {
    eventName,
    eventPath,
    repository,
    apiUrl: (env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, ""),
    serverUrl,
    deliveryId: runId ? `${runId}-${env.GITHUB_RUN_ATTEMPT || "1"}` : `local-${eventName}`,
    runUrl: runId && repository ? `${serverUrl}/${repository}/actions/runs/${runId}` : undefined,
    actor:
      env.GITHUB_ACTOR && Number.isInteger(actorId)
        ? {
            login: env.GITHUB_ACTOR,
            id: actorId,
            type: env.GITHUB_ACTOR.endsWith("[bot]") ? "Bot" : "User",
          }
        : undefined,
    tempDir: env.RUNNER_TEMP || tmpdir(),
    refName: env.GITHUB_REF_NAME || undefined,
  };
}

/**
 * Scheduled runs have had payloads without a repository; it is rebuilt from
 * GITHUB_REPOSITORY, and the ref a schedule runs on is the default branch.
 */
export function withRepository(payload: unknown, context: RunnerContext): unknown {
  const object = (payload && typeof payload === "object" ? payload : {}) as Record<string, unknown>;
  if (object.repository || !context.repository || !context.refName) return payload;
  const [owner, name] = context.repository.split("/");
  return {
    ...object,
    repository: {
      name,
      owner: { login: owner },
      clone_url: `${context.serverUrl}/${context.repository}.git`,
      default_branch: context.refName,
      html_url: `${context.serverUrl}/${context.repository}`,
    },
  };
}
