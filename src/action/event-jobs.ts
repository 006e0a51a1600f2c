import type { Redactor } from "../agent/redact.js";
import type { Transcript } from "../agent/transcript.js";
import { loadRepoConfig } from "../config/load.js";
import type { RepoConfig } from "../config/schema.js";
import { errorMessage } from "../error-message.js";
import type { GitHubClient } from "../github/octokit.js";
import { fanOut } from "../kernel/events.js";
import type { PrefetchedRepository } from "../kernel/repository.js";
import type { JobRequest } from "../requests/request.js";
import { admitRequest, askedByDefault } from "../thread/admit.js";
import type { ThreadOutcome } from "../thread/plan.js";
import { createRequestStatus } from "../thread/request-status.js";
import { runJob } from "../thread/run-job.js";
import { type RepositoryJobRequest, runRepositoryJob } from "../thread/run-repository-job.js";
import type { ThreadServices } from "../thread/services.js";
import { readThreadAhead } from "../thread/thread-reads.js";
import type { ActionsIo } from "./actions-io.js";
import { type ActionInputs, applyInputs } from "./inputs.js";
import { type JobLog, withJobLog } from "./job-log.js";
import type { ActionJobView } from "./job-view.js";
import { type ActionResult, failed, skipped } from "./result.js";

/**
 * The two kinds of job an Action run starts, once its event is known and
 * its credentials are in hand: a request on an issue or pull request (the
 * App's gate and tracking comment), or a prompt for the repository.
 */

/** Everything a job needs once the event is known and the credentials are in hand. */
export interface EventRun {
  io: ActionsIo;
  clock: { now(): number };
  /** The run's page, linked from the tracking comment. */
  runUrl: string | undefined;
  inputs: ActionInputs;
  octokit: GitHubClient;
  botLogin: string;
  redact: Redactor;
  transcript: Transcript;
  log: JobLog;
  /** The job's page, written as a file at the end of the run (job-view.ts). */
  view: ActionJobView;
  /** The repository's mirror, fetched from the start of the run (prefetchRepository). */
  fetched: PrefetchedRepository;
  /** Its sandbox is probed when the job first opens one (see JobServices.sandbox). */
  services: ThreadServices;
}

/** A job that ran, or the result of one that was not started. */
export type Ran = { outcome: ThreadOutcome; config: RepoConfig } | ActionResult;

/** Comment, review, label and pull_request events: the App's gate, tracking comment and job. */
export async function runRequest(run: EventRun, request: JobRequest): Promise<Ran> {
  const { io } = run;
  const logged = withJobLog(
    createRequestStatus(
      {
        octokit: run.octokit,
        clock: run.clock,
        redact: run.redact,
        jobUrl: run.runUrl,
        onError: (error, action) =>
          io.warning(run.redact(`could not ${action}: ${errorMessage(error)}`)),
      },
      request,
    ),
    run.log,
  );
  // The job's page gets the final report as the comment does.
  const status: typeof logged = {
    ...logged,
    finish: async (markdown, outcome) => {
      run.view.report(run.redact(markdown), outcome);
      await logged.finish(markdown, outcome);
    },
  };
  const admit = {
    octokit: run.octokit,
    botLogin: run.botLogin,
    configPath: run.inputs.configPath,
    adjustConfig: (loaded: RepoConfig) => applyInputs(loaded, run.inputs),
  };
  // The thread is read beside the admission's checks when someone asks the bot.
  const threadReads = askedByDefault(admit, request)
    ? readThreadAhead(run.octokit, request)
    : undefined;
  const admission = await admitRequest(admit, request, status);
  if (!admission.admitted) {
    await status.settled();
    const { owner, name } = request.repo;
    const where = `${owner}/${name}#${request.target.number}`;
    switch (admission.reason) {
      case "not_for_us":
        io.info(`Nothing to do: the ${request.trigger} on ${where} is not a request for the bot.`);
        return skipped(`the ${request.trigger} on ${where} is not a request for the bot`);
      case "closed":
      case "locked":
        return skipped(`${where} is ${admission.reason}; no job was started`);
      case "unauthorized":
        return failed(
          `@${request.requester.login} cannot start a job: only people with write access to ${owner}/${name} can ask patchwright for changes`,
        );
      case "config_error":
        return failed(
          `the config file ${admission.configError?.path ?? run.inputs.configPath ?? ""} on ${request.repo.defaultBranch} is invalid, so no job was started: ${admission.configError?.message ?? ""}`,
        );
      case "check_failed":
        return failed(
          `GitHub kept failing the checks for ${where}, so no job was started (the requester was asked to try again): ${admission.checkError ?? ""}`,
        );
    }
  }
  run.transcript.write(runStart(request.instruction, admission.config));
  const outcome = await runJob(run.services, request, admission.config, status, {
    events: fanOut(run.view.events, { warning: (message) => annotate(run, message) }),
    prefetched: run.fetched,
    threadReads,
  });
  await status.settled();
  return { outcome, config: admission.config };
}

/** workflow_dispatch and schedule: the prompt on the default branch, a new pull request. */
export async function runRepository(run: EventRun, request: RepositoryJobRequest): Promise<Ran> {
  const loaded = await loadRepoConfig(run.octokit, {
    owner: request.repo.owner,
    repo: request.repo.name,
    ref: request.repo.defaultBranch,
    ...(run.inputs.configPath ? { path: run.inputs.configPath } : {}),
  });
  if (!loaded.ok) {
    return failed(
      `the config file ${loaded.error.path} on ${request.repo.defaultBranch} is invalid, so no job was started: ${loaded.error.message}`,
    );
  }
  const config = applyInputs(loaded.config, run.inputs);
  run.transcript.write(runStart(request.instruction, config));
  const outcome = await runRepositoryJob(run.services, request, config, {
    events: fanOut(
      {
        agent: (event) => run.log.onEvent(event),
        step: (step) => run.log.onStep(step),
        warning: (message) => annotate(run, message),
      },
      run.view.events,
    ),
    // Started with the run, for this repository's clone URL.
    fetched: run.fetched.mirror,
  });
  return { outcome, config };
}

/** A warning of the job as an annotation on the run, as well as in the thread's final report. */
function annotate(run: EventRun, message: string): void {
  run.io.warning(run.redact(message));
}

/** The transcript's first record of a job: what it was asked, with which model and policy. */
function runStart(task: string, config: RepoConfig) {
  return {
    type: "run_start" as const,
    task,
    model: config.model,
    cwd: "",
    policy: config.policy.preset,
  };
}
