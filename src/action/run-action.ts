import { join } from "node:path";
import { loadAnthropicSdk } from "../agent/model/anthropic.js";
import {
  createModelFactory,
  type ModelFactory,
  otherProviderConfigured,
} from "../agent/model/factory.js";
import type { Model } from "../agent/model/model.js";
import type { SecretRedactor } from "../agent/redact.js";
import { closeTranscript, openTranscript } from "../agent/transcript.js";
import { detectProjectTools } from "../deps/managers/project-tools-source.js";
import { errorMessage } from "../error-message.js";
import type { GitHubClient } from "../github/octokit.js";
import { streamingFetch } from "../github/rest/http-fetch.js";
import { readBaseFactsAhead } from "../kernel/base-facts.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import type { ThreadOutcome } from "../thread/plan.js";
import type { ActionsIo } from "./actions-io.js";
import { createInstallationToken, type InstallationAuth } from "./app-token.js";
import { actionSandbox, actionSecrets } from "./containment.js";
import type { EarlyFetch } from "./early-fetch.js";
import { type EventRun, runRepository, runRequest } from "./event-jobs.js";
import { type ActionEvent, forkPullRequestNote, parseActionEvent } from "./events.js";
import { ActionFailure } from "./failure.js";
import { type ActionInputs, readInputs } from "./inputs.js";
import { jobEnv } from "./job-env.js";
import { createJobLog } from "./job-log.js";
import { type ActionJobView, createActionJobView } from "./job-view.js";
import { type ActionResult, failed, skipped } from "./result.js";
import { firstOf, startFetch } from "./run-fetch.js";
import { type RunnerContext, readRunnerContext, withRepository } from "./runner-context.js";
import type { JobViewLink } from "./step-summary.js";

/**
 * One run of the Action, from the runner's environment to a report: the
 * event, the inputs, credentials, then the same job the App runs. Every
 * ending is a report; a failure carries the message the step fails with.
 */

export interface ActionDeps {
  io: ActionsIo;
  env: Record<string, string | undefined>;
  clock: { now(): number };
  readFile: (path: string) => Promise<string>;
  /** A GitHub client authenticated with `auth` (a token, or the App's JWT) against `baseUrl`. */
  /** `auth`: a token, or where to get the current one (an App's, renewed during the run). */
  createClient: (auth: string | (() => Promise<string>), baseUrl: string) => GitHubClient;
  /** Tests may swap the model; the default talks to the Messages API. */
  createModel?: ((modelId: string) => Model) | undefined;
  /** Aborted when the run is cancelled: the agent stops and the work so far is pushed. */
  signal?: AbortSignal | undefined;
  /** Where repository code runs; default: bubblewrap, or a refusal naming the fix. */
  sandbox?: SandboxLauncher | undefined;
  /** The fetch the entry started before the bundle loaded (early-fetch.ts). */
  earlyFetch?: EarlyFetch | undefined;
}

/** The workflow's own token comments and pushes as this account. */
const ACTIONS_BOT = "github-actions[bot]";

export async function runAction(deps: ActionDeps, redact: SecretRedactor): Promise<ActionResult> {
  const { io, env } = deps;
  const context = readRunnerContext(env);
  const payload: unknown = JSON.parse(await deps.readFile(context.eventPath));

  // First, before inputs: a fork's run has no secrets, so its inputs are not even complete.
  const forkNote = forkPullRequestNote(context.eventName, payload);
  if (forkNote) {
    io.info(forkNote);
    return skipped(forkNote);
  }

  const parsed = readInputs((name) => io.getInput(name), env);
  if (!parsed.ok) return failed(parsed.message);
  const inputs = parsed.inputs;
  if (inputs.mode === "deps") {
    if (context.eventName !== "workflow_dispatch" && context.eventName !== "schedule") {
      return failed(
        `input mode: deps runs on workflow_dispatch and schedule events, not ${context.eventName}`,
      );
    }
    const withRepo = context.eventName === "schedule" ? withRepository(payload, context) : payload;
    const repository = (withRepo as { repository?: { name?: string; owner?: { login?: string } } })
      .repository;
    const auth = await authenticate(deps, context, inputs, {
      owner: repository?.owner?.login ?? "",
      name: repository?.name ?? "",
    });
    io.setSecret(auth.token);
    // Loaded only in this mode: the registry client is a large part of the bundle.
    const { runDepsMode } = await import("./deps-mode.js");
    const cacheDir = join(context.tempDir, "patchwright", "cache");
    return runDepsMode(
      {
        octokit: deps.createClient(auth.current ?? auth.token, context.apiUrl),
        token: auth.current ?? auth.token,
        clock: deps.clock,
        envSource: jobEnv(deps.env),
        secrets: actionSecrets(deps.env, inputs, auth.token),
        createModel:
          deps.createModel ??
          actionModelFactory(
            deps.env,
            inputs,
            "input anthropic_api_key: required to fix what a bump breaks",
          ),
        cacheDir,
        sandbox: await actionSandbox(
          { sandbox: deps.sandbox, env: deps.env, io: deps.io },
          inputs,
          cacheDir,
        ),
        signal: deps.signal,
        info: (message) => io.info(redact(message)),
      },
      withRepo,
      inputs,
    );
  }

  const event = parseActionEvent({
    eventName: context.eventName,
    payload: context.eventName === "schedule" ? withRepository(payload, context) : payload,
    deliveryId: context.deliveryId,
    prompt: inputs.prompt,
    mode: inputs.mode,
    actor: context.actor,
    runUrl: context.runUrl,
  });
  if (event.kind === "skip") {
    io.info(`Nothing to do: ${event.reason}.`);
    return skipped(event.reason);
  }
  return runEvent(deps, context, inputs, event, redact);
}

async function authenticate(
  deps: ActionDeps,
  context: RunnerContext,
  inputs: ActionInputs,
  repo: { owner: string; name: string },
): Promise<InstallationAuth> {
  if (inputs.app) {
    return createInstallationToken({
      app: inputs.app,
      owner: repo.owner,
      repo: repo.name,
      clock: deps.clock,
      clientFor: (jwt) => deps.createClient(jwt, context.apiUrl),
      onRenewed: (token) => deps.io.setSecret(token),
    });
  }
  if (inputs.githubToken) return { token: inputs.githubToken, botLogin: ACTIONS_BOT };
  throw new ActionFailure(
    "input github_token: required (it defaults to the workflow's token; was it set to an empty value?), or give app_id and private_key",
  );
}

async function runEvent(
  deps: ActionDeps,
  context: RunnerContext,
  inputs: ActionInputs,
  event: Exclude<ActionEvent, { kind: "skip" }>,
  baseRedact: SecretRedactor,
): Promise<ActionResult> {
  const { io } = deps;
  // Bedrock, Vertex and OpenAI-compatible models take their settings from the step's env instead.
  if (!inputs.anthropicApiKey && !deps.createModel && !otherProviderConfigured(deps.env)) {
    throw new ActionFailure(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow expression the user writes
      "input anthropic_api_key: required; store your Anthropic API key as a repository secret and pass it as anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}",
    );
  }
  // The model SDK compiles while the API and git calls wait. (The shell
  // grammar loads later, beside the first model request: see the session.)
  if (!deps.createModel) loadAnthropicSdk().catch(() => {});
  const auth = await authenticate(deps, context, inputs, event.request.repo);
  io.setSecret(auth.token);
  // The repository's fetch starts now, beside the API calls that decide the
  // job (its config, the thread): the fetch is most of the way to the
  // agent's first request. A run that starts no job stops the
  // fetch when it ends (see the finally below).
  const cacheDir = join(context.tempDir, "patchwright", "cache");
  const envSource = jobEnv(deps.env);
  const fetched = startFetch(deps.earlyFetch, deps.signal, {
    cacheDir,
    envSource,
    cloneUrl: event.request.repo.cloneUrl,
    token: auth.token,
    repoSizeKb: event.request.repo.sizeKb,
  });
  // The fetch is the longer road to the first model request, so git starts
  // before the API calls and the probe take this thread (each step of the
  // mirror's making waits for the thread to be free). A mirror that is
  // locked (another run on this machine) is not waited for long.
  await firstOf(fetched.underway, fetched.mirror, 250);
  readBaseFactsAhead({ envSource }, fetched, {
    token: auth.token,
    baseBranch: event.request.repo.defaultBranch,
  });
  // Probed when the job first opens a sandbox, once its workspace is there
  // (its first model request is usually out by then): this thread is the
  // way to that request (it spawns, loads and parses for it), and the
  // probe's two processes need not take it first.
  let probing: Promise<SandboxLauncher> | undefined;
  const sandbox = () => {
    probing ??= actionSandbox(deps, inputs, cacheDir);
    return probing;
  };
  const redact = baseRedact.including([auth.token]);
  const octokit = deps.createClient(auth.current ?? auth.token, context.apiUrl);
  const transcriptPath = join(
    context.tempDir,
    "patchwright",
    `transcript-${context.deliveryId}.jsonl`,
  );
  const transcript = await openTranscript(transcriptPath, redact, deps.clock);
  const log = createJobLog({ info: (m) => io.info(m), transcript, redact });
  const started = deps.clock.now();
  const request = event.request;
  const view = createActionJobView({
    path: join(context.tempDir, "patchwright", `job-${context.deliveryId}.html`),
    job: {
      id: context.deliveryId,
      kind: event.kind === "request" ? "request" : request.trigger,
      ...(event.kind === "request" && event.request.task ? { task: event.request.task } : {}),
      repo: { owner: request.repo.owner, name: request.repo.name },
      requester: request.requester?.login,
      triggerUrl:
        event.kind === "request"
          ? (event.request.source.htmlUrl ?? event.request.target.htmlUrl)
          : context.runUrl,
      createdAt: started,
      startedAt: started,
    },
    redact,
    clock: deps.clock,
  });
  const run: EventRun = {
    io,
    clock: deps.clock,
    runUrl: context.runUrl,
    inputs,
    octokit,
    botLogin: auth.botLogin,
    redact,
    transcript,
    log,
    view,
    fetched,
    services: {
      octokit,
      gitToken: auth.current ?? (async () => auth.token),
      createModel:
        deps.createModel ??
        actionModelFactory(deps.env, inputs, "input anthropic_api_key: required"),
      cacheDir,
      // Probed when first asked for (above).
      sandbox,
      secrets: actionSecrets(deps.env, inputs, auth.token),
      envSource,
      clock: deps.clock,
      // A runner runs one job: no spare tree for a next one.
      spareTrees: false,
      projectTools: detectProjectTools,
      botLogin: auth.botLogin,
      redact,
      signal: deps.signal,
      // Known for an App's token only: a github_token's permissions cannot be read back.
      canPushWorkflows: auth.canPushWorkflows,
    },
  };

  try {
    const ran =
      event.kind === "request"
        ? await runRequest(run, event.request)
        : await runRepository(run, event.request);
    if ("report" in ran) return ran;
    const { outcome, config } = ran;
    // Commits pushed onto the pull request being worked on update that pull request.
    const target = event.kind === "request" ? event.request.target : undefined;
    const workedOn =
      target?.kind === "pull_request" && target.htmlUrl && outcome.job?.push
        ? { number: target.number, url: target.htmlUrl }
        : undefined;
    // Loaded now: the reports and the diff library are no part of the way to the first request.
    const { reportOf } = await import("./outcome-report.js");
    const report = {
      ...reportOf(outcome, config, redact, transcriptPath, workedOn),
      jobView: await attachJobView(io, view, outcome, context),
    };
    transcript.write({
      type: "run_end",
      conclusion: outcome.conclusion,
      headline: report.headline,
    });
    return {
      report,
      ...(outcome.conclusion === "failure" ? { failure: report.headline } : {}),
    };
  } finally {
    // A job awaited the fetch long ago; a run that started none does not wait for it.
    fetched.stop();
    await closeTranscript(transcript, (message) => io.warning(redact(message)));
  }
}

/**
 * Models for the Action: the Anthropic key from its input, every other
 * provider's settings from the step's environment (AWS_REGION, CLOUD_ML_REGION,
 * OPENAI_API_KEY...), as the repository's `model:` asks.
 */
function actionModelFactory(
  env: Record<string, string | undefined>,
  inputs: ActionInputs,
  missingKey: string,
): ModelFactory {
  return createModelFactory(
    { ...env, ANTHROPIC_API_KEY: inputs.anthropicApiKey },
    {
      missingAnthropicKey: missingKey,
      // Through node:https, as the API calls are: the run never loads undici (http-fetch.ts).
      anthropicFetch: streamingFetch as unknown as typeof fetch,
    },
  );
}

/**
 * The job's page as a file attached to the run (an artifact), linked from
 * the step summary; where the run has no artifact service, the summary
 * names the file. A failure here never fails the job: the summary says so.
 */
async function attachJobView(
  io: ActionsIo,
  view: ActionJobView,
  outcome: ThreadOutcome,
  context: { deliveryId: string; runUrl: string | undefined },
): Promise<JobViewLink> {
  const path = await view.write(outcome);
  try {
    const id = await io.uploadArtifact(`patchwright-job-${context.deliveryId}`, path);
    return id !== undefined && context.runUrl
      ? { path, url: `${context.runUrl}/artifacts/${id}` }
      : { path };
  } catch (error) {
    io.warning(`could not attach the job's page to the run: ${errorMessage(error)}`);
    return { path };
  }
}
