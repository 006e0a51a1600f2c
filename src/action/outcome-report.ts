import type { Redactor } from "../agent/redact.js";
import type { ChangeResult } from "../change/change.js";
import type { RepoConfig } from "../config/schema.js";
import { plural } from "../github/markdown.js";
import { checksRun } from "../report/checks.js";
import { fileStats } from "../report/diff-stats.js";
import type { ThreadOutcome } from "../thread/plan.js";
import { finalReport } from "../thread/report.js";
import type { ActionReport } from "./step-summary.js";

/**
 * How a finished job reads on the workflow page: the headline, outputs and
 * summary table. run-action.ts imports this when the job is over: with the
 * reports and the diff library it needs, it is no part of the way to the
 * first model request.
 */

type PullLink = { number: number; url: string };

function headlineOf(
  outcome: ThreadOutcome,
  job: ChangeResult,
  redact: Redactor,
  workedOn: PullLink | undefined,
): string {
  const { pullRequest } = outcome;
  if (outcome.conclusion === "failure") {
    const why =
      job.error?.message ??
      (job.verify?.passed === false
        ? `the verify command \`${job.verify.command}\` failed`
        : `the agent stopped (${job.agent?.stopReason ?? "error"})`);
    return `the job failed: ${redact(why)}`;
  }
  if (outcome.conclusion === "no_changes") return "the agent answered without changing files";
  if (pullRequest) {
    return `${pullRequest.created ? "opened" : "updated"} pull request #${pullRequest.number}`;
  }
  const where = workedOn ? ` (pull request #${workedOn.number})` : "";
  return `pushed ${plural(job.commits.length, "commit")} to ${job.branch}${where}`;
}

/**
 * `workedOn`: the pull request the job pushed onto (a pull_request event or a
 * comment on a PR), reported like one it opened.
 */
export function reportOf(
  outcome: ThreadOutcome,
  config: RepoConfig,
  redact: Redactor,
  transcriptPath: string,
  workedOn?: PullLink,
): ActionReport {
  const { job, pullRequest } = outcome;
  const pull = pullRequest ? { number: pullRequest.number, url: pullRequest.url } : workedOn;
  const base = {
    // The Action keeps no checkpoints: a run cut short is a failure like any other.
    conclusion: outcome.conclusion === "interrupted" ? ("failure" as const) : outcome.conclusion,
    transcriptPath,
    ...(pull ? { pullRequest: pull } : {}),
  };
  // runJob reported the failure on the thread and kept no job result.
  if (!job) return { ...base, headline: "the job stopped with an error; see the tracking comment" };
  const headline = headlineOf(outcome, job, redact, workedOn);
  return {
    ...base,
    headline: headline.split("\n")[0] ?? headline,
    branch: job.push ? job.branch : job.fallbackBranch,
    files: fileStats(job.changes),
    checks: checksRun(job.commands).map((run) => ({
      ...run,
      command: redact(run.command),
      outputTail: redact(run.outputTail),
    })),
    verify: job.verify,
    turns: job.agent?.turns,
    usage: job.agent?.usage,
    costUsd: job.agent?.costUsd,
    details: finalReport(job, config, redact, pullRequest).markdown,
  };
}
