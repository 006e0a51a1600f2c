import type { Redactor } from "../agent/redact.js";
import type { ChangeResult } from "../change/change.js";
import type { RepoConfig } from "../config/schema.js";
import { checksRun } from "../report/checks.js";
import { fileStats } from "../report/diff-stats.js";
import {
  declinedPushOf,
  type FailureKind,
  type FinalReportInput,
  type PullRequestLink,
  renderFinalReport,
} from "../report/final-report.js";
import { type RunStats, renderMcp, renderPullRequestBody } from "../report/summary.js";
import { renderWarnings } from "../report/warnings.js";
import { markInvisible } from "../secrets/invisible.js";
import { type FollowedPlan, renderFollowedPlan } from "./kinds/plan-report.js";
import type { PullRequestOrigin } from "./origin.js";

/**
 * Turns what a job did into the words a maintainer reads: the pull request
 * body and the tracking comment's final report. Every text that came from
 * the model or from command output is redacted here, before GitHub sees it.
 */

/** What the agent's run cost, against the job's cap (`budgetUsd`) when one is given. */
export function runStats(
  job: ChangeResult,
  model: string,
  budgetUsd?: number,
): RunStats | undefined {
  if (!job.agent) return undefined;
  return {
    budgetUsd,
    usage: job.agent.usage,
    costUsd: job.agent.costUsd,
    turns: job.agent.turns,
    durationMs: job.durationMs,
    model,
    stopReason: job.agent.stopReason,
  };
}

export function failureOf(job: ChangeResult): FailureKind | null {
  switch (job.error?.stage) {
    case "workspace":
      return "workspace_failed";
    case "setup":
      return "setup_failed";
    case "push":
      return "push_failed";
    case "sandbox":
      return "sandbox_unavailable";
    default:
      break;
  }
  const stop = job.agent?.stopReason;
  if (stop && stop !== "end_turn") return stop;
  return job.error ? "internal" : null;
}

export function pullRequestBody(
  job: ChangeResult,
  origin: PullRequestOrigin,
  config: RepoConfig,
  redact: Redactor,
  followed?: FollowedPlan,
): string {
  const stats = runStats(job, config.model, config.maxCostUsd);
  const body = redact(
    renderPullRequestBody({
      ...(stats ?? {
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: 0,
        turns: 0,
        durationMs: job.durationMs,
        model: config.model,
        stopReason: "end_turn",
      }),
      closes: origin.closes,
      request: { login: origin.requester, url: origin.url },
      jobPage: origin.jobPage,
      summary: job.agent?.finalText ?? "",
      commits: job.commits,
      files: fileStats(job.changes),
      checks: checksRun(job.commands),
      verify: job.verify,
      drift: job.drift,
      mcp: job.agent?.mcp,
    }),
  );
  const plan = followed ? `\n\n${redact(renderFollowedPlan(followed, job))}` : "";
  const warnings = job.warnings?.length ? `\n\n${redact(renderWarnings(job.warnings))}` : "";
  // No character a reader cannot see, whatever the model wrote.
  return markInvisible(`${body}${warnings}${plan}`);
}

/**
 * A pull request whose checks did not pass opens as a draft (when the config
 * says so): verify failed, the agent stopped early, or the last run of a
 * check the agent ran failed.
 */
export function opensAsDraft(job: ChangeResult, config: RepoConfig): boolean {
  if (!config.draftOnFailure) return false;
  if (job.verify?.passed === false || job.agent?.stopReason !== "end_turn") return true;
  const last = new Map(checksRun(job.commands).map((run) => [run.command, run.passed]));
  return [...last.values()].some((passed) => !passed);
}

export function finalReport(
  job: ChangeResult,
  config: RepoConfig,
  redact: Redactor,
  pullRequest?: PullRequestLink,
): { markdown: string; outcome: "success" | "failure" } {
  const run = runStats(job, config.model, config.maxCostUsd);
  const failure = failureOf(job);
  let input: FinalReportInput;
  if (failure) {
    input = {
      outcome: "failure",
      failure,
      error: job.error?.message ?? job.agent?.error,
      limits: {
        maxTurns: config.maxTurns,
        maxCostUsd: config.maxCostUsd,
        timeoutMinutes: config.maxMinutes,
      },
      partial:
        job.push || job.fallbackBranch
          ? {
              branch: job.push ? job.branch : (job.fallbackBranch ?? job.branch),
              commits: job.commits.length,
              pullRequest,
            }
          : undefined,
      checks: checksRun(job.commands),
      verify: job.verify,
      pushDeclined: declinedPushOf(job),
      run,
    };
  } else if (job.commits.length === 0) {
    input = { outcome: "no_changes", answer: job.agent?.finalText ?? "", run };
  } else {
    input = {
      outcome: "success",
      branch: job.branch,
      pullRequest,
      summary: job.agent?.finalText,
      commits: job.commits,
      files: fileStats(job.changes),
      checks: checksRun(job.commands),
      verify: job.verify,
      drift: job.drift,
      run,
    };
  }
  const outcome = failure || job.verify?.passed === false ? "failure" : "success";
  const markdown = [
    renderFinalReport(input),
    job.notices?.length ? ["**To review**", ...job.notices].join("\n") : "",
    job.warnings?.length ? renderWarnings(job.warnings) : "",
    config.budgetNote ?? "",
    renderMcp(job.agent?.mcp),
    renderCapped(config),
  ]
    .filter(Boolean)
    .join("\n\n");
  return { markdown: redact(markdown), outcome };
}

/** What the operator's ceilings lowered, so the repository knows why a setting did not hold. */
function renderCapped(config: RepoConfig): string {
  if (!config.capped?.length) return "";
  return ["**Operator limits**", ...config.capped.map((line) => `- ${line}`)].join("\n");
}
