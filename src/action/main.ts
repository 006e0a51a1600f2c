import { readFile } from "node:fs/promises";
import { createRedactor } from "../agent/redact.js";
import { errorMessage } from "../error-message.js";
import type { GitHubClient } from "../github/octokit.js";
import { httpFetch } from "../github/rest/http-fetch.js";
import { createRouteClient } from "../github/rest/route-client.js";
import { createTokenSourceAuth } from "../github/rest/token-source-auth.js";
import { type ActionsIo, createActionsIo } from "./actions-io.js";
import { ActionFailure } from "./failure.js";
import { SECRET_INPUTS } from "./inputs.js";
import { type ActionResult, failed } from "./result.js";
import { type ActionDeps, runAction } from "./run-action.js";
import { actionOutputs, renderStepSummary } from "./step-summary.js";

/**
 * The Action's entry (run.ts calls it): secrets masked first, then the run,
 * then outputs and the step summary in every case, and `setFailed` with a
 * message that says what to do when the step must fail.
 */

const USER_AGENT = "patchwright-action";

/** Failed requests are thrown and reported by the caller; Octokit's own logging would say it twice. */
const QUIET_LOG = { debug() {}, info() {}, warn: console.warn, error() {} };

// Through node:http, not undici: the API calls that decide the job go out before undici loads (github/rest/http-fetch.ts).
function createClient(auth: string | (() => Promise<string>), baseUrl: string): GitHubClient {
  return createRouteClient({
    // A token renewed during the run is asked for by each request.
    ...(typeof auth === "string"
      ? { auth }
      : { authStrategy: createTokenSourceAuth, auth: { current: auth } }),
    baseUrl,
    userAgent: USER_AGENT,
    log: QUIET_LOG,
    request: { fetch: httpFetch },
  });
}

export function defaultDeps(env: Record<string, string | undefined> = process.env): ActionDeps {
  return {
    io: createActionsIo(env),
    env,
    clock: Date,
    readFile: (path) => readFile(path, "utf8"),
    createClient,
  };
}

/**
 * A cancelled run gets SIGINT, then SIGTERM a few seconds later: the job
 * stops its agent, pushes what it has and says so, instead of dying mid-push.
 */
function cancelOnSignals(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const abort = () => controller.abort(new Error("the workflow run was cancelled"));
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  return {
    signal: controller.signal,
    dispose() {
      process.off("SIGINT", abort);
      process.off("SIGTERM", abort);
    },
  };
}

export async function main(overrides: Partial<ActionDeps> = {}): Promise<void> {
  const cancel = overrides.signal ? undefined : cancelOnSignals();
  try {
    await runAndPublish({
      ...defaultDeps(overrides.env),
      ...(cancel ? { signal: cancel.signal } : {}),
      ...overrides,
    });
  } finally {
    cancel?.dispose();
    // Done long ago when a job used it; a run that ends sooner does not wait for git.
    overrides.earlyFetch?.stop();
  }
}

async function runAndPublish(deps: ActionDeps): Promise<void> {
  const { io } = deps;
  const secrets = [...SECRET_INPUTS.map((name) => io.getInput(name)), deps.env.ANTHROPIC_API_KEY];
  for (const secret of secrets) if (secret) io.setSecret(secret);
  const redact = createRedactor(secrets);

  let result: ActionResult;
  try {
    result = await runAction(deps, redact);
  } catch (error) {
    const message = redact(errorMessage(error));
    // Our own failures already say what to do; anything else is named as unexpected.
    result = failed(error instanceof ActionFailure ? message : `patchwright failed: ${message}`);
  }
  await publish(io, result);
}

async function publish(io: ActionsIo, result: ActionResult): Promise<void> {
  for (const [name, value] of Object.entries(actionOutputs(result.report)))
    io.setOutput(name, value);
  try {
    await io.appendSummary(renderStepSummary(result.report));
  } catch (error) {
    io.warning(`could not write the step summary: ${errorMessage(error)}`);
  }
  if (result.failure) io.setFailed(result.failure);
}
