import type { GitHubClient, RepoRef } from "./octokit.js";

/**
 * The Actions and Checks API calls a CI fix needs: the runs on a commit,
 * re-running a run's failed jobs, and what failed (jobs, steps, logs,
 * annotations, and the output of check runs from other CI services).
 */

export interface HeadRun {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  attempt: number;
  url: string;
}

export const FAILED_CONCLUSIONS = new Set(["failure", "timed_out", "startup_failure"]);

export function isFailed(run: Pick<HeadRun, "conclusion">): boolean {
  return FAILED_CONCLUSIONS.has(run.conclusion ?? "");
}

/** The workflow runs on a commit, newest attempt of each. */
export async function runsOnCommit(
  octokit: GitHubClient,
  repo: RepoRef,
  headSha: string,
): Promise<HeadRun[]> {
  const { data } = await octokit.rest.actions.listWorkflowRunsForRepo({
    ...repo,
    head_sha: headSha,
    per_page: 100,
  });
  return data.workflow_runs.map((run) => ({
    id: run.id,
    name: run.name ?? run.display_title ?? `run ${run.id}`,
    status: run.status ?? "unknown",
    conclusion: run.conclusion ?? null,
    attempt: run.run_attempt ?? 1,
    url: run.html_url,
  }));
}

export async function rerunFailedJobs(
  octokit: GitHubClient,
  repo: RepoRef,
  runId: number,
): Promise<void> {
  await octokit.rest.actions.reRunWorkflowFailedJobs({ ...repo, run_id: runId });
}

export interface FailedJob {
  id: number;
  name: string;
  runName: string;
  url: string;
  failedSteps: string[];
}

export async function failedJobsOf(
  octokit: GitHubClient,
  repo: RepoRef,
  run: Pick<HeadRun, "id" | "name">,
): Promise<FailedJob[]> {
  const { data } = await octokit.rest.actions.listJobsForWorkflowRun({
    ...repo,
    run_id: run.id,
    filter: "latest",
    per_page: 100,
  });
  return data.jobs
    .filter((job) => FAILED_CONCLUSIONS.has(job.conclusion ?? ""))
    .map((job) => ({
      id: job.id,
      name: job.name,
      runName: run.name,
      url: job.html_url ?? "",
      failedSteps: (job.steps ?? [])
        .filter((step) => FAILED_CONCLUSIONS.has(step.conclusion ?? ""))
        .map((step) => step.name),
    }));
}

/** A job's whole log as text (GitHub answers with a redirect to it). */
export async function jobLog(octokit: GitHubClient, repo: RepoRef, jobId: number): Promise<string> {
  const { data } = await octokit.rest.actions.downloadJobLogsForWorkflowRun({
    ...repo,
    job_id: jobId,
  });
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return String(data ?? "");
}

/** Error and warning annotations of a job (an Actions job is a check run with the same id). */
export async function annotationsOf(
  octokit: GitHubClient,
  repo: RepoRef,
  checkRunId: number,
): Promise<string[]> {
  const { data } = await octokit.rest.checks.listAnnotations({
    ...repo,
    check_run_id: checkRunId,
    per_page: 50,
  });
  return data
    .filter((a) => a.annotation_level !== "notice")
    .map((a) => `${a.path}:${a.start_line}: ${a.annotation_level}: ${a.message ?? ""}`.trim());
}

export interface FailedCheck {
  name: string;
  url: string;
  text: string;
}

/** Failed check runs that are not Actions jobs (other CI services report through Checks). */
export async function failedOtherChecks(
  octokit: GitHubClient,
  repo: RepoRef,
  headSha: string,
  /** Also Actions' own check runs: when the Actions API showed no runs to read logs from. */
  includeActions = false,
): Promise<FailedCheck[]> {
  const { data } = await octokit.rest.checks.listForRef({
    ...repo,
    ref: headSha,
    filter: "latest",
    per_page: 100,
  });
  return data.check_runs
    .filter((run) => FAILED_CONCLUSIONS.has(run.conclusion ?? ""))
    .filter((run) => includeActions || run.app?.slug !== "github-actions")
    .map((run) => ({
      name: run.name,
      url: run.html_url ?? "",
      text: [run.output?.title, run.output?.summary, run.output?.text].filter(Boolean).join("\n"),
    }));
}
