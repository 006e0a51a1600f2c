import type { ChangeInput } from "../change/change.js";
import type { RepoConfig } from "../config/schema.js";
import { errorMessage } from "../error-message.js";
import { buildAgentTask } from "../github/context.js";
import { loadBaseInstructions } from "../github/instructions.js";
import type { GitHubClient } from "../github/octokit.js";
import { createWriterCheck } from "../github/permissions.js";
import { findIssuePullRequest } from "../github/pulls.js";
import { pushSigned } from "../github/signed-push.js";
import type { StatusReporter } from "../github/status.js";
import { fanOut, type JobEvents } from "../kernel/events.js";
import { type PrefetchedRepository, prefetchRepository } from "../kernel/repository.js";
import { isTransientFailure, whatFailed } from "../kernel/transient-failure.js";
import { workflowsBlocked } from "../kernel/workflow-files.js";
import type { JobRequest } from "../requests/request.js";
import type { NetworkPolicy } from "../sandbox/network.js";
import { afterTracking } from "./after-tracking.js";
import { applyRequestBudget } from "./budget.js";
import { executePlan, isInterrupted } from "./execute-plan.js";
import { coAuthorOf, jobSettingsFrom } from "./job-settings.js";
import { headlineOf, planTask } from "./kinds/index.js";
import { tendedPullRequest } from "./kinds/tended.js";
import { taskOf } from "./kinds/upkeep-task.js";
import { originOf } from "./origin.js";
import type { PlanKind, Publish, ThreadOutcome, ThreadPlan } from "./plan.js";
import type { ThreadServices } from "./services.js";
import { isUpkeepEvent } from "./start-rules.js";
import type { ThreadReads } from "./thread-reads.js";

const OFF: NetworkPolicy = { kind: "off" };

export interface RunJobOptions {
  /** Requests made on the thread while an earlier job ran, folded into this one (oldest first). */
  earlierRequests?: readonly JobRequest[] | undefined;
  /** Checkpoints on the remote under this ref, so a job cut short resumes (see change/checkpoints.ts). */
  checkpointRef?: string | undefined;
  /**
   * Who else listens to the job's events (the job record keeps the tracking
   * comment, the pushed branch, the checkpoints; a log takes warnings); the
   * tracking comment always does.
   */
  events?: Partial<JobEvents> | undefined;
  /**
   * Which attempt of the job this run is, of how many, and the wait before
   * the next. Before the last one, a failure that may pass (GitHub 5xx or
   * rate limit, git server down, a broken connection) is not final: the
   * comment says when it tries again and the outcome carries `retry`.
   */
  retry?: { attempt: number; of: number; delayMs: number } | undefined;
  /**
   * The branch an earlier run of this job pushed before it could publish
   * (it died, or GitHub failed): an issue's work goes on there, and the
   * checkpoint it holds is picked up, instead of a second branch.
   */
  pushedBranch?: string | undefined;
  /** The job's id (the App's queue record): written into a plan, so a go that took it knows itself again. */
  jobId?: string | undefined;
  /**
   * The caller's fetch of the request's repository, started before the job
   * (the Action starts it with the run): used when the job works on that
   * clone URL, instead of fetching again.
   */
  prefetched?: PrefetchedRepository | undefined;
  /** The thread's reads, started by the caller beside its admission (thread-reads.ts). */
  threadReads?: ThreadReads | undefined;
}

/**
 * One admitted request, start to finish: the tracking comment, the thread
 * as context, the git job (workspace, agent, commits, verify, push), the
 * pull request, and the final report. Every entry point calls this after
 * admitRequest; it reports failures on the thread instead of throwing.
 */
export async function runJob(
  services: ThreadServices,
  asked: JobRequest,
  repoConfig: RepoConfig,
  status: StatusReporter,
  runOptions: RunJobOptions = {},
): Promise<ThreadOutcome> {
  // A budget in the request ("budget $2") sets this job's cost cap, and its
  // words leave the instruction before anything reads it.
  const budgeted = applyRequestBudget(repoConfig, asked, runOptions.earlierRequests);
  const { config, request } = budgeted;
  const options: RunJobOptions = { ...runOptions, earlierRequests: budgeted.earlierRequests };
  const task = taskOf(request, config.triggerPhrase);
  // An event (CI failed, the base moved) on a pull request the bot does not
  // tend, or that needs nothing, ends here without a word on the thread.
  const tended =
    isUpkeepEvent(request) && task !== "review"
      ? await tendedPullRequest(services, request, config)
      : {};
  if (!tended) return { conclusion: "no_changes" };
  // The tracking comment hears everything; the caller's listeners what they want.
  const events = fanOut(
    {
      agent: (event) => status.update(event),
      step: (step, note) => status.step(step, note),
    },
    options.events,
  );
  // The tracking comment is made while the plan reads the thread (which
  // never shows it: only what came before the trigger is read) and while
  // the work starts: later writes to it queue behind its creation
  // (github/status.ts), what the job's listeners keep reaches them after it
  // (afterTracking), and the ending waits for it.
  const tracking = (async () => {
    await status.start(headlineOf(task, request), {
      usd: config.maxCostUsd,
      note: config.budgetNote,
    });
    const commentId = status.commentId();
    const commentUrl = status.commentUrl();
    if (commentId !== undefined && commentUrl)
      await events.tracking({ id: commentId, url: commentUrl });
  })();
  // Awaited below, before any execution or ending; a plan that throws first must not leave it unhandled.
  tracking.catch(() => {});
  const retry =
    options.retry && options.retry.attempt < options.retry.of ? options.retry : undefined;
  try {
    // Asked once: an upkeep plan reads it, then the request's plan it builds on.
    let pulled: ReturnType<typeof pullRequestOf> | undefined;
    const pullRequest = () => {
      pulled ??= pullRequestOf(services.octokit, request);
      return pulled;
    };
    // Not after the comment: its round trip (hundreds of milliseconds on
    // GitHub) would come before the agent's first model request.
    const execute = (planned: ThreadPlan) =>
      executePlan(services, config, planned, afterTracking(events, tracking), {
        throwTransient: retry !== undefined,
      }).finally(() => tracking);
    const plan = await planTask(task, {
      services,
      request,
      config,
      status,
      tracking,
      planRequest: (kind) => planRequest(services, request, config, options, kind, pullRequest),
      pullRequest,
      execute,
      jobId: options.jobId,
      dependencyBot: tended.dependencyBot,
    });
    if ("done" in plan) {
      await tracking;
      await status.finish(services.redact(plan.done.markdown), plan.done.outcome);
      const id = status.commentId();
      const url = status.commentUrl();
      return {
        conclusion: plan.done.outcome === "failure" ? "failure" : "no_changes",
        ...(plan.job ? { job: plan.job } : {}),
        // A plan that waits for a go: the caller may watch its comment for a 👍.
        ...(plan.done.plan && id !== undefined && url ? { planPosted: { id, url } } : {}),
      };
    }
    const outcome = await execute(plan);
    if (outcome.report)
      await status.finish(services.redact(outcome.report.markdown), outcome.report.outcome);
    const { report: _report, ...rest } = outcome;
    return rest;
  } catch (error) {
    await tracking;
    if (isInterrupted(services, undefined, options.checkpointRef))
      return { conclusion: "interrupted" };
    const message = services.redact(errorMessage(error));
    if (retry && isTransientFailure(error)) {
      await status.suspend(retryNote(whatFailed(error), message, retry));
      return { conclusion: "failure", retry: message };
    }
    await status.finish(`Something went wrong and the job stopped: ${message}`, "failure");
    return { conclusion: "failure" };
  }
}

function retryNote(
  who: string,
  message: string,
  retry: NonNullable<RunJobOptions["retry"]>,
): string {
  const seconds = Math.max(1, Math.round(retry.delayMs / 1000));
  const wait = seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
  return [
    `⏳ ${who}; trying again in about ${wait} (attempt ${retry.attempt + 1} of ${retry.of}).`,
    `What failed: ${message.split("\n")[0]}`,
  ].join("\n\n");
}

/**
 * What a request runs and how its result is published. An issue gets a
 * pull request, or more commits on the bot's pull request still open for
 * it; a pull request gets commits on its own branch; a fork's pull request
 * is read from the fork, never pushed, and answered with a patch.
 */
async function planRequest(
  services: ThreadServices,
  request: JobRequest,
  config: RepoConfig,
  options: RunJobOptions,
  kind: PlanKind = {},
  pullRequest: () => ReturnType<typeof pullRequestOf> = () =>
    pullRequestOf(services.octokit, request),
): Promise<ThreadPlan> {
  const owner = request.repo.owner;
  const repo = request.repo.name;
  // The thread, the pull request and the issue's own pull request are read
  // side by side: each is an API round trip on the way to the agent's start.
  const reading = buildAgentTask(services.octokit, request, {
    isWriter: createWriterCheck(services.octokit, { owner, repo }),
    redact: services.redact,
    botLogin: services.botLogin,
    triggerPhrase: config.triggerPhrase,
    earlierRequests: options.earlierRequests,
    instruction: kind.instruction,
    attachments: kind.attachments,
    thread: options.threadReads?.thread(),
  });
  // Awaited below; a failure of the others first must not leave it unhandled.
  reading.catch(() => {});
  const [pr, issuePull] = await Promise.all([
    pullRequest(),
    request.target.kind === "issue"
      ? findIssuePullRequest(
          services.octokit,
          { owner, repo, issueNumber: request.target.number, prefix: config.branchPrefix },
          options.threadReads?.openPulls(),
        )
      : undefined,
  ]);
  const fork = pr?.isFork === true;
  // A fork's branch lives in the fork; it is read from there and never pushed.
  const repository = fork
    ? { cloneUrl: pr.headCloneUrl ?? request.repo.cloneUrl }
    : {
        cloneUrl: request.repo.cloneUrl,
        repoSizeKb: request.repo.sizeKb,
        token: services.gitToken,
      };
  // The fetch runs while the thread is read through the API (or has since the caller started).
  const fetched =
    options.prefetched?.cloneUrl === repository.cloneUrl && !fork
      ? options.prefetched.mirror
      : prefetchRepository(services, repository);
  // The job's git must not outlive the job: a thread that cannot be read ends
  // the job only once the fetch started for it is done (a retry, or the
  // cache's cleanup, would otherwise meet it still writing the mirror).
  const task = await reading.catch(async (error: unknown) => {
    await fetched;
    throw error;
  });
  const existingBranch =
    pr?.headRef ?? issuePull?.headRef ?? (fork ? undefined : options.pushedBranch);
  const input: ChangeInput = {
    ...repository,
    fetched,
    baseBranch: fork ? undefined : (issuePull?.baseRef ?? request.repo.defaultBranch),
    defaultBranch: request.repo.defaultBranch,
    existingBranch,
    // A token in the title must not become part of a branch name.
    branchTitle: services.redact(request.target.title),
    issueNumber: request.target.kind === "issue" ? request.target.number : undefined,
    task,
    ...jobSettingsFrom(config, services.createModel),
    // A fork's code (its install scripts, its tests) runs with no network at
    // all, and its own AGENTS.md does not instruct the agent: the base's does.
    ...(fork
      ? {
          network: OFF,
          setupNetwork: OFF,
          // The fork's code and the agent reading it get no servers holding the repository's credentials.
          mcpServers: undefined,
          instructions: await loadBaseInstructions(services.octokit, {
            owner,
            repo,
            ref: pr.baseRef,
          }),
        }
      : {}),
    coAuthor: coAuthorOf(request.requester),
    requestUrl: request.source.htmlUrl ?? request.target.htmlUrl,
    // Nothing of a fork's is pushed, so there is nothing to resume from.
    checkpointRef: fork ? undefined : options.checkpointRef,
    push: !fork,
    wantPatch: fork,
    ...(services.canPushWorkflows === false ? workflowsBlocked(config) : {}),
    // GitHub signs commits it creates for the App: they show as Verified.
    ...(config.signedCommits && !fork
      ? {
          pushVia: (target) =>
            pushSigned({ ...target, octokit: services.octokit, repo: { owner, repo } }),
        }
      : {}),
    ...kind.input,
  };
  return { input, work: { kind: "agent" }, publish: publishOf(request, fork, issuePull) };
}

/**
 * An issue's work opens a pull request, or goes onto the bot's pull request
 * still open for it; a pull request's goes onto its own branch; a fork's is
 * answered with a patch.
 */
function publishOf(
  request: JobRequest,
  fork: boolean,
  issuePull: Awaited<ReturnType<typeof findIssuePullRequest>>,
): Publish {
  if (fork) return { kind: "patch" };
  if (request.target.kind !== "issue") return { kind: "branch" };
  return {
    kind: "pull_request",
    repo: { owner: request.repo.owner, repo: request.repo.name },
    // The issue's title is untrusted text like its body.
    title: `${request.target.title} (#${request.target.number})`,
    origin: originOf(request),
    ...(issuePull
      ? {
          existing: { number: issuePull.number, url: issuePull.url, created: false },
          headRef: issuePull.headRef,
        }
      : {}),
  };
}

async function pullRequestOf(
  octokit: GitHubClient,
  request: JobRequest,
): Promise<JobRequest["pullRequest"]> {
  if (request.target.kind !== "pull_request") return undefined;
  // A fork's clone URL is not in every payload; without it the job could not read the branch.
  if (request.pullRequest && (!request.pullRequest.isFork || request.pullRequest.headCloneUrl)) {
    return request.pullRequest;
  }
  const { data } = await octokit.rest.pulls.get({
    owner: request.repo.owner,
    repo: request.repo.name,
    pull_number: request.target.number,
  });
  const headRepo = data.head.repo?.full_name ?? "";
  return {
    headRef: data.head.ref,
    headSha: data.head.sha,
    headRepoFullName: headRepo || "(deleted fork)",
    ...(data.head.repo?.clone_url ? { headCloneUrl: data.head.repo.clone_url } : {}),
    baseRef: data.base.ref,
    isFork: headRepo !== data.base.repo.full_name,
  };
}
