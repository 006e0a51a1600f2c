import { join } from "node:path";
import type { Model } from "../agent/model.js";
import { createRedactor, type Redactor } from "../agent/redact.js";
import { openTranscript } from "../agent/transcript.js";
import { loadRepoConfig } from "../config/load.js";
import type { RepoConfig } from "../config/schema.js";
import type { GitHubClient } from "../github/octokit.js";
import { admitRequest } from "../job/admit.js";
import { fileStats } from "../job/diff-stats.js";
import { anthropicModelFactory, createRequestStatus } from "../job/job-deps.js";
import { finalReport } from "../job/report.js";
import type { JobDeps, JobOutcome } from "../job/run-job.js";
import { runJob } from "../job/run-job.js";
import { runRepositoryJob } from "../job/run-repository-job.js";
import type { ActionsIo } from "./actions-io.js";
import { createInstallationToken } from "./app-token.js";
import { type ActionEvent, forkPullRequestNote, parseActionEvent } from "./events.js";
import { ActionFailure } from "./failure.js";
import { type ActionInputs, applyInputs, readInputs } from "./inputs.js";
import { createJobLog, withJobLog } from "./job-log.js";
import { type RunnerContext, readRunnerContext, withRepository } from "./runner-context.js";
import type { ActionReport } from "./step-summary.js";

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
  createClient: (auth: string, baseUrl: string) => GitHubClient;
  /** Tests may swap the model; the default talks to the Messages API. */
  createModel?: ((modelId: string) => Model) | undefined;
}

export interface ActionResult {
  report: ActionReport;
  /** Set when the step must fail: the message for `setFailed`. */
  failure?: string | undefined;
}

/** The workflow's own token comments and pushes as this account. */
const ACTIONS_BOT = "github-actions[bot]";

/** Runner variables that are credentials or job plumbing: git and the job never need them. */
function jobEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => !/^(INPUT_|ACTIONS_)/.test(name) && name !== "GITHUB_TOKEN",
    ),
  );
}

const fail = (failure: string): ActionResult => ({
  report: { conclusion: "failure", headline: failure.split("\n")[0] ?? failure },
  failure,
});

const skip = (reason: string): ActionResult => ({
  report: { conclusion: "skipped", headline: reason },
});

export async function runAction(deps: ActionDeps, redact: Redactor): Promise<ActionResult> {
  const { io, env } = deps;
  const context = readRunnerContext(env);
  const payload: unknown = JSON.parse(await deps.readFile(context.eventPath));

  // First, before inputs: a fork's run has no secrets, so its inputs are not even complete.
  const forkNote = forkPullRequestNote(context.eventName, payload);
  if (forkNote) {
    io.info(forkNote);
    return skip(forkNote);
  }

  const parsed = readInputs((name) => io.getInput(name));
  if (!parsed.ok) return fail(parsed.message);
  const inputs = parsed.inputs;
  if (inputs.mode === "deps") {
    return fail(
      "input mode: dependency bumps are not available yet (mode: deps); use mode: auto with a prompt for now",
    );
  }

  const event = parseActionEvent({
    eventName: context.eventName,
    payload: context.eventName === "schedule" ? withRepository(payload, context) : payload,
    deliveryId: context.deliveryId,
    prompt: inputs.prompt,
    actor: context.actor,
    runUrl: context.runUrl,
  });
  if (event.kind === "skip") {
    io.info(`Nothing to do: ${event.reason}.`);
    return skip(event.reason);
  }
  return runEvent(deps, context, inputs, event, redact);
}

async function runEvent(
  deps: ActionDeps,
  context: RunnerContext,
  inputs: ActionInputs,
  event: Exclude<ActionEvent, { kind: "skip" }>,
  baseRedact: Redactor,
): Promise<ActionResult> {
  const { io } = deps;
  if (!inputs.anthropicApiKey && !deps.createModel) {
    throw new ActionFailure(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow expression the user writes
      "input anthropic_api_key: required; store your Anthropic API key as a repository secret and pass it as anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}",
    );
  }
  const { owner, name: repo } = event.request.repo;
  const auth = inputs.app
    ? await createInstallationToken({
        app: inputs.app,
        owner,
        repo,
        clock: deps.clock,
        clientFor: (jwt) => deps.createClient(jwt, context.apiUrl),
      })
    : inputs.githubToken
      ? { token: inputs.githubToken, botLogin: ACTIONS_BOT }
      : undefined;
  if (!auth) {
    throw new ActionFailure(
      "input github_token: required (it defaults to the workflow's token; was it set to an empty value?), or give app_id and private_key",
    );
  }
  io.setSecret(auth.token);
  const redact = (text: string) => createRedactor([auth.token])(baseRedact(text));
  const octokit = deps.createClient(auth.token, context.apiUrl);

  const transcriptPath = join(
    context.tempDir,
    "patchwright",
    `transcript-${context.deliveryId}.jsonl`,
  );
  const transcript = await openTranscript(transcriptPath, redact, deps.clock);
  const log = createJobLog({ info: (m) => io.info(m), transcript, redact });
  const jobDeps: JobDeps = {
    octokit,
    gitToken: async () => auth.token,
    createModel:
      deps.createModel ??
      anthropicModelFactory({
        apiKey: inputs.anthropicApiKey,
        baseURL: deps.env.ANTHROPIC_BASE_URL,
        missingKey: "input anthropic_api_key: required",
      }),
    cacheDir: join(context.tempDir, "patchwright", "cache"),
    envSource: jobEnv(deps.env),
    clock: deps.clock,
    botLogin: auth.botLogin,
    redact,
  };

  try {
    let outcome: JobOutcome;
    let config: RepoConfig;
    if (event.kind === "request") {
      const request = event.request;
      const status = withJobLog(
        createRequestStatus(
          {
            octokit,
            clock: deps.clock,
            redact,
            jobUrl: context.runUrl,
            onError: (error, action) =>
              io.warning(redact(`could not ${action}: ${messageOf(error)}`)),
          },
          request,
        ),
        log,
      );
      const admission = await admitRequest(
        {
          octokit,
          botLogin: auth.botLogin,
          configPath: inputs.configPath,
          adjustConfig: (loaded) => applyInputs(loaded, inputs),
        },
        request,
        status,
      );
      await status.settled();
      if (!admission.admitted) {
        const where = `${owner}/${repo}#${request.target.number}`;
        switch (admission.reason) {
          case "not_for_us":
            io.info(
              `Nothing to do: the ${request.trigger} on ${where} is not a request for the bot.`,
            );
            return skip(`the ${request.trigger} on ${where} is not a request for the bot`);
          case "closed":
          case "locked":
            return skip(`${where} is ${admission.reason}; no job was started`);
          case "unauthorized":
            return fail(
              `@${request.requester.login} cannot start a job: only people with write access to ${owner}/${repo} can ask patchwright for changes`,
            );
          case "config_error":
            return fail(
              `the config file ${admission.configError?.path ?? inputs.configPath ?? ""} on ${request.repo.defaultBranch} is invalid, so no job was started: ${admission.configError?.message ?? ""}`,
            );
        }
      }
      config = admission.config;
      transcript.write(runStart(request.instruction, config));
      outcome = await runJob(jobDeps, request, config, status);
      await status.settled();
    } else {
      const request = event.request;
      const loaded = await loadRepoConfig(octokit, {
        owner,
        repo,
        ref: request.repo.defaultBranch,
        ...(inputs.configPath ? { path: inputs.configPath } : {}),
      });
      if (!loaded.ok) {
        return fail(
          `the config file ${loaded.error.path} on ${request.repo.defaultBranch} is invalid, so no job was started: ${loaded.error.message}`,
        );
      }
      config = applyInputs(loaded.config, inputs);
      transcript.write(runStart(request.instruction, config));
      outcome = await runRepositoryJob(jobDeps, request, config, log);
    }
    const report = reportOf(outcome, config, redact, transcriptPath);
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
    await transcript.close();
  }
}

function runStart(task: string, config: RepoConfig) {
  return {
    type: "run_start" as const,
    task,
    model: config.model,
    cwd: "",
    policy: config.policy.preset,
  };
}

function reportOf(
  outcome: JobOutcome,
  config: RepoConfig,
  redact: Redactor,
  transcriptPath: string,
): ActionReport {
  const { job, pullRequest } = outcome;
  const pushed = job?.push !== undefined;
  const base = {
    conclusion: outcome.conclusion,
    transcriptPath,
    ...(pullRequest ? { pullRequest: { number: pullRequest.number, url: pullRequest.url } } : {}),
  };
  if (!job) {
    return { ...base, headline: "the job stopped with an error; see the tracking comment" };
  }
  const agent = job.agent;
  const headline =
    outcome.conclusion === "failure"
      ? `the job failed: ${redact(job.error?.message ?? (job.verify?.passed === false ? `the verify command \`${job.verify.command}\` failed` : `the agent stopped (${agent?.stopReason ?? "error"})`))}`
      : outcome.conclusion === "no_changes"
        ? "the agent answered without changing files"
        : pullRequest
          ? `${pullRequest.created ? "opened" : "updated"} pull request #${pullRequest.number}`
          : `pushed ${job.commits.length} commit(s) to ${job.branch}`;
  return {
    ...base,
    headline: headline.split("\n")[0] ?? headline,
    branch: pushed ? job.branch : job.fallbackBranch,
    files: fileStats(job.changes),
    verify: job.verify,
    turns: agent?.turns,
    usage: agent?.usage,
    costUsd: agent?.costUsd,
    details: finalReport(job, config, redact, pullRequest).markdown,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
