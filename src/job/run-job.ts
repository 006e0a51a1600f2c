import type { AgentEvent } from "../agent/events.js";
import type { Model } from "../agent/model.js";
import type { Redactor } from "../agent/redact.js";
import type { RepoConfig } from "../config/schema.js";
import { errorMessage } from "../error-message.js";
import type { KnownSecret } from "../git/secret-scan.js";
import { buildAgentTask } from "../github/context.js";
import { loadBaseInstructions } from "../github/instructions.js";
import type { GitHubClient } from "../github/octokit.js";
import { createWriterCheck } from "../github/permissions.js";
import { openOrUpdatePullRequest } from "../github/pulls.js";
import type { StatusReporter } from "../github/status.js";
import type { JobRequest } from "../requests/request.js";
import type { NetworkPolicy } from "../sandbox/network.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import { renderForkPatchAnswer } from "./answers.js";
import { coAuthorOf, jobSettingsFrom } from "./job-settings.js";
import { finalReport, opensAsDraft, originOf, pullRequestBody } from "./report.js";
import { type GitJobResult, prefetchRepository, runGitJob } from "./run-git-job.js";

export interface JobDeps {
  octokit: GitHubClient;
  /** The token git uses to fetch and push (installation token, Action token). Never given to the agent. */
  gitToken: () => Promise<string | undefined>;
  createModel: (modelId: string) => Model;
  cacheDir: string;
  /** Every command from the repository or the agent runs in one of its sandboxes. */
  sandbox: SandboxLauncher;
  /** Every secret the process holds, by name: none may leave in a commit. */
  secrets: readonly KnownSecret[];
  /** The process environment: git gets what it needs, the agent's shell only an allowlist. */
  envSource: Record<string, string | undefined>;
  clock: { now(): number };
  botLogin: string;
  redact: Redactor;
  signal?: AbortSignal | undefined;
}

const OFF: NetworkPolicy = { kind: "off" };

export interface JobOutcome {
  job?: GitJobResult;
  pullRequest?: { number: number; url: string; created: boolean };
  conclusion: "success" | "failure" | "no_changes";
}

/**
 * One admitted request, start to finish: the tracking comment, the thread
 * as context, the git job (workspace, agent, commits, verify, push), the
 * pull request, and the final report. Every entry point calls this after
 * admitRequest; it reports failures on the thread instead of throwing.
 */
export async function runJob(
  deps: JobDeps,
  request: JobRequest,
  config: RepoConfig,
  status: StatusReporter,
): Promise<JobOutcome> {
  await status.start(`Working on @${request.requester.login}'s request`);
  const owner = request.repo.owner;
  const repo = request.repo.name;
  try {
    const pr = await pullRequestOf(deps.octokit, request);
    const fork = pr?.isFork === true;
    const gitDeps = {
      cacheDir: deps.cacheDir,
      sandbox: deps.sandbox,
      secrets: deps.secrets,
      envSource: deps.envSource,
      clock: deps.clock,
      signal: deps.signal,
      onEvent: (event: AgentEvent) => status.update(event),
      onStep: (step: string) => status.step(step),
    };
    // A fork's branch lives in the fork; it is read from there and never pushed.
    const repository = fork
      ? { cloneUrl: pr.headCloneUrl ?? request.repo.cloneUrl }
      : {
          cloneUrl: request.repo.cloneUrl,
          repoSizeKb: request.repo.sizeKb,
          token: await deps.gitToken(),
        };
    // The fetch runs while the thread is read through the API.
    const fetched = prefetchRepository(gitDeps, repository);
    const task = await buildAgentTask(deps.octokit, request, {
      isWriter: createWriterCheck(deps.octokit, { owner, repo }),
      redact: deps.redact,
      botLogin: deps.botLogin,
      triggerPhrase: config.triggerPhrase,
    });
    const job = await runGitJob(gitDeps, {
      ...repository,
      fetched,
      baseBranch: fork ? undefined : request.repo.defaultBranch,
      defaultBranch: request.repo.defaultBranch,
      existingBranch: pr?.headRef,
      branchTitle: request.target.title,
      issueNumber: request.target.kind === "issue" ? request.target.number : undefined,
      task,
      ...jobSettingsFrom(config, deps.createModel),
      // A fork's code (its install scripts, its tests) runs with no network at
      // all, and its own AGENTS.md does not instruct the agent: the base's does.
      ...(fork
        ? {
            network: OFF,
            setupNetwork: OFF,
            instructions: await loadBaseInstructions(deps.octokit, {
              owner,
              repo,
              ref: pr.baseRef,
            }),
          }
        : {}),
      coAuthor: coAuthorOf(request.requester),
      requestUrl: request.source.htmlUrl ?? request.target.htmlUrl,
      push: !fork,
      wantPatch: fork,
    });

    if (fork && job.patch && !job.error) {
      const answer = renderForkPatchAnswer({
        patch: job.patch,
        summary: job.agent?.finalText ?? "",
      });
      await status.finish(deps.redact(answer), "success");
      return { job, conclusion: "success" };
    }

    let pullRequest: JobOutcome["pullRequest"];
    // Issues get a pull request; on a pull request the commits went onto its own branch.
    if (request.target.kind === "issue" && job.push) {
      pullRequest = await openOrUpdatePullRequest(deps.octokit, {
        owner,
        repo,
        head: job.branch,
        base: job.baseBranch,
        title: `${request.target.title} (#${request.target.number})`,
        body: pullRequestBody(job, originOf(request), config, deps.redact),
        draft: opensAsDraft(job, config),
      });
    }
    const report = finalReport(job, config, deps.redact, pullRequest);
    await status.finish(report.markdown, report.outcome);
    const conclusion =
      job.commits.length === 0 && report.outcome === "success" ? "no_changes" : report.outcome;
    return { job, ...(pullRequest ? { pullRequest } : {}), conclusion };
  } catch (error) {
    const message = deps.redact(errorMessage(error));
    await status.finish(`Something went wrong and the job stopped: ${message}`, "failure");
    return { conclusion: "failure" };
  }
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
