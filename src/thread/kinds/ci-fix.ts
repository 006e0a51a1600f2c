import type { RepoConfig } from "../../config/schema.js";
import { errorMessage } from "../../error-message.js";
import {
  annotationsOf,
  type FailedJob,
  failedJobsOf,
  failedOtherChecks,
  type HeadRun,
  isFailed,
  jobLog,
  rerunFailedJobs,
  runsOnCommit,
} from "../../github/ci-runs.js";
import type { GitHubClient, RepoRef } from "../../github/octokit.js";
import type { Attachment } from "../../github/thread-render.js";
import { cutLog, failureFingerprint } from "./ci-log-excerpt.js";
import { type PullTarget, sleepFor, type TaskContext } from "./kind.js";

/**
 * Before a CI fix touches code: wait for the commit's runs to finish, re-run
 * failed jobs once (a failure that passes then is flaky, and is reported as
 * such with no commit), and gather what still fails (the failing steps'
 * log lines, annotations, other CI services' check output) for the agent.
 * Bounded: at most `ci_fix.max_attempts` fixes per pull request, counted
 * from the bot's own reports on it.
 */

/** Hidden in the report of each fix attempt, so the next job can count them. */
export const CI_FIX_MARKER = "<!-- patchwright ci-fix-attempt -->";
const MAX_EVIDENCE_CHARS = 24_000;

export interface CiFixContext {
  octokit: GitHubClient;
  repo: RepoRef;
  pull: { number: number; headSha: string };
  config: Pick<RepoConfig, "ciFix">;
  botLogin: string;
  step(text: string): void;
  clock: { now(): number };
  sleep(ms: number): Promise<void>;
  /** How often the runs are looked at while waiting (default 15 s). */
  pollMs?: number | undefined;
  /** The marker the attempts are counted by, and the setting that limits them (default: the CI fix's). */
  attempts?: { marker: string; setting: string } | undefined;
}

export type CiFixPlan =
  | { kind: "done"; markdown: string; outcome: "success" | "failure" }
  | {
      kind: "fix";
      attempt: number;
      maxAttempts: number;
      fingerprint: string;
      failing: string[];
      attachments: Attachment[];
    };

/** A CI fix's context for a thread job's pull request, with the job's config, clock and progress. */
export function ciFixContext(
  ctx: TaskContext,
  target: Pick<PullTarget, "repo" | "pull">,
): CiFixContext {
  return {
    octokit: ctx.services.octokit,
    repo: target.repo,
    pull: target.pull,
    config: ctx.config,
    botLogin: ctx.services.botLogin,
    step: (text) => ctx.status.step(text),
    clock: ctx.services.clock,
    sleep: ctx.sleep ?? sleepFor,
  };
}

export async function prepareCiFix(ctx: CiFixContext): Promise<CiFixPlan> {
  const { octokit, repo, pull } = ctx;
  const sha7 = pull.headSha.slice(0, 7);
  const max = ctx.config.ciFix.maxAttempts;
  const setting = ctx.attempts?.setting ?? "ci_fix.max_attempts";
  const done = await fixAttemptsSoFar(ctx, ctx.attempts?.marker ?? CI_FIX_MARKER);
  if (done >= max) {
    return {
      kind: "done",
      outcome: "failure",
      markdown: `CI is failing on \`${sha7}\`, but I have already made ${done} attempt${done === 1 ? "" : "s"} to fix CI on this pull request (the limit, \`${setting}\`, is ${max}). I'm leaving it to a person now.`,
    };
  }
  ctx.step(`Waiting for CI on ${sha7} to finish`);
  // Actions turned off (or another CI only): no runs, and the check runs tell what failed.
  const runs = await settle(ctx, () =>
    runsOnCommit(octokit, repo, pull.headSha).catch((): HeadRun[] => []),
  );
  const failed = runs.filter(isFailed);
  const others = await failedOtherChecks(octokit, repo, pull.headSha, runs.length === 0).catch(
    () => [],
  );
  if (failed.length === 0 && others.length === 0) {
    return {
      kind: "done",
      outcome: "success",
      markdown: `CI is not failing on \`${sha7}\` (${describeRuns(runs)}): nothing to fix.`,
    };
  }

  let stillFailed = failed;
  const firstTries = await rerunOnce(
    ctx,
    failed.filter((run) => run.attempt === 1),
  );
  if (firstTries.length > 0) {
    const rerunIds = new Set(firstTries.map((run) => run.id));
    const after = await settle(ctx, async () => {
      const now = await runsOnCommit(octokit, repo, pull.headSha);
      // A re-run shows as a later attempt of the same run; until then it is still pending.
      return now.map((run) =>
        rerunIds.has(run.id) && run.attempt === 1 ? { ...run, status: "queued" } : run,
      );
    });
    stillFailed = after.filter(isFailed);
    if (stillFailed.length === 0 && others.length === 0) {
      const evidence = await gather(
        ctx,
        failed.map((run) => ({ ...run, attempt: 1 })),
      );
      return {
        kind: "done",
        outcome: "success",
        markdown: [
          `CI failed on \`${sha7}\` and passed when the failed jobs were re-run once: a **flaky** failure. No code was changed.`,
          "",
          `Failed, then passed: ${failed.map((run) => `[${run.name}](${run.url})`).join(", ")}.`,
          `Failure fingerprint: \`${evidence.fingerprint}\`.`,
        ].join("\n"),
      };
    }
  }

  ctx.step("Reading the failing jobs' logs");
  const evidence = await gather(ctx, stillFailed);
  const attachments: Attachment[] = [
    ...evidence.attachments,
    ...others.map((check) => ({
      name: `check ${check.name}`,
      note: `The output of the failed check "${check.name}" (${check.url}).`,
      text: check.text.slice(0, 6_000) || "(the check gave no output)",
    })),
  ];
  return {
    kind: "fix",
    attempt: done + 1,
    maxAttempts: max,
    fingerprint: evidence.fingerprint,
    failing: [...evidence.jobNames, ...others.map((check) => check.name)],
    attachments: capTotal(attachments, MAX_EVIDENCE_CHARS),
  };
}

/**
 * Re-runs each run's failed jobs; the runs it could re-run. A refusal (no
 * `actions: write`, a run too old to re-run) is said in the report and the
 * fix goes on without the flaky check for that run.
 */
async function rerunOnce(ctx: CiFixContext, runs: HeadRun[]): Promise<HeadRun[]> {
  if (runs.length === 0) return [];
  ctx.step("Re-running the failed jobs once, to rule out a flaky failure");
  const rerun: HeadRun[] = [];
  for (const run of runs) {
    try {
      await rerunFailedJobs(ctx.octokit, ctx.repo, run.id);
      rerun.push(run);
    } catch (error) {
      ctx.step(`Could not re-run the failed jobs of ${run.name}: ${rerunRefusal(error)}`);
    }
  }
  return rerun;
}

function rerunRefusal(error: unknown): string {
  const status = (error as { status?: unknown }).status;
  const reason = errorMessage(error).split("\n")[0]?.slice(0, 300) ?? "";
  if (status === 403) {
    return `${reason} (re-running needs the \`actions: write\` permission); going on to the fix`;
  }
  return `${reason}; going on to the fix`;
}

async function fixAttemptsSoFar(ctx: CiFixContext, marker: string): Promise<number> {
  const comments = await ctx.octokit.paginate(ctx.octokit.rest.issues.listComments, {
    ...ctx.repo,
    issue_number: ctx.pull.number,
    per_page: 100,
  });
  const bot = ctx.botLogin.toLowerCase();
  return comments.filter(
    (c) => c.user?.login.toLowerCase() === bot && (c.body ?? "").includes(marker),
  ).length;
}

/** Polls until every run is completed, or the wait (ci_fix.rerun_wait) is over. */
async function settle(ctx: CiFixContext, read: () => Promise<HeadRun[]>): Promise<HeadRun[]> {
  const deadline = ctx.clock.now() + ctx.config.ciFix.rerunWaitSeconds * 1000;
  for (;;) {
    const runs = await read();
    if (runs.every((run) => run.status === "completed") || ctx.clock.now() >= deadline) return runs;
    await ctx.sleep(ctx.pollMs ?? 15_000);
  }
}

async function gather(ctx: CiFixContext, runs: HeadRun[]) {
  const jobs: FailedJob[] = [];
  for (const run of runs) jobs.push(...(await failedJobsOf(ctx.octokit, ctx.repo, run)));
  const cut: Array<{ name: string; errorLines: string[] }> = [];
  const attachments: Attachment[] = [];
  for (const job of jobs) {
    const log = await jobLog(ctx.octokit, ctx.repo, job.id).catch(() => "");
    const notes = await annotationsOf(ctx.octokit, ctx.repo, job.id).catch(() => []);
    const excerpt = cutLog(log);
    cut.push({ name: `${job.runName} / ${job.name}`, errorLines: excerpt.errorLines });
    const steps = job.failedSteps.length > 0 ? ` Failed steps: ${job.failedSteps.join(", ")}.` : "";
    attachments.push({
      name: `ci ${job.runName} / ${job.name}`,
      note: `The failing CI job "${job.runName} / ${job.name}" (${job.url}).${steps} Its error lines with context, then its annotations.`,
      text: [
        excerpt.text || "(no log)",
        ...(notes.length ? ["--- annotations", ...notes] : []),
      ].join("\n"),
    });
  }
  return {
    attachments,
    fingerprint: failureFingerprint(cut),
    jobNames: cut.map((job) => job.name),
  };
}

function capTotal(attachments: Attachment[], max: number): Attachment[] {
  const each = Math.max(1_500, Math.floor(max / Math.max(1, attachments.length)));
  return attachments.map((a) =>
    a.text.length > each ? { ...a, text: `[... cut ...]\n${a.text.slice(-each)}` } : a,
  );
}

function describeRuns(runs: HeadRun[]): string {
  if (runs.length === 0) return "no workflow runs";
  return runs.map((run) => `${run.name}: ${run.conclusion ?? run.status}`).join(", ");
}
