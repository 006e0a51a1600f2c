import type { AgentEvent } from "../agent/events.js";
import type {
  CheckpointSettings,
  GitJobDeps,
  GitJobInput,
  GitJobResult,
} from "../change/change.js";
import { runGitJob } from "../change/run-change.js";
import type { RepoConfig } from "../config/schema.js";
import { handedBack, runJobSequence } from "../kernel/sequence.js";
import type { PullRequestLink } from "../report/final-report.js";
import { finalReport } from "./report.js";
import type { JobDeps, JobOutcome } from "./run-job.js";

/**
 * The agent's job kinds on the one sequence (sequence.ts): the git job
 * (workspace, setup, agent, commits, verify, push) is the work, the kind's
 * publishing (a pull request opened or updated, or an answer of its own
 * such as a fork's patch) follows, then the final report. A kind is a plan:
 * what to run and how to publish it. Dependency groups run on the same
 * sequence with work of their own (deps/run-deps-group.ts).
 */

/** Where a job's progress goes: the tracking comment, or a log. */
export interface Progress {
  onEvent?: ((event: AgentEvent) => void) | undefined;
  onStep?: ((step: string, note?: string) => void) | undefined;
  onWarning?: ((message: string) => void) | undefined;
  /** The work is on its branch (not yet published): a job record keeps the name for a re-run. */
  onPushed?: ((branch: string) => Promise<void> | void) | undefined;
}

export interface JobPlan {
  /** The git job; `fetched` may already be under way. */
  input: GitJobInput;
  /** Makes the pushed work visible; returns the pull request it opened or updated, if any. */
  publish(job: GitJobResult): Promise<PullRequestLink | undefined>;
  /** Words that stand instead of the final report (a fork's patch, a review), when the kind has its own. */
  answer?(job: GitJobResult): string | undefined | Promise<string | undefined>;
  /** The job's own runner instead of the agent's (bringing a branch up to date). */
  run?(deps: GitJobDeps, input: GitJobInput): Promise<GitJobResult>;
  /** Lines around the final report (a CI fix's attempt number and its marker). */
  frame?: { before?: string; after?: string } | undefined;
}

export interface PipelineResult extends JobOutcome {
  /** The final report, for the tracking comment or the log; none when interrupted. */
  report?: { markdown: string; outcome: "success" | "failure" };
}

export interface PipelineOptions {
  /**
   * The git job's fetch or push met a server that was down (after git's own
   * retries): throw a TransientJobError instead of reporting, so the caller
   * can hand the job back to the queue while it has attempts left.
   */
  throwTransient?: boolean | undefined;
}

export async function runPipeline(
  deps: JobDeps,
  config: RepoConfig,
  plan: JobPlan,
  progress: Progress,
  checkpoints?: CheckpointSettings,
  options: PipelineOptions = {},
): Promise<PipelineResult> {
  const run = plan.run ?? runGitJob;
  let answer: string | undefined;
  const outcome = await runJobSequence(
    {
      work: () =>
        run(
          {
            cacheDir: deps.cacheDir,
            sandbox: deps.sandbox,
            secrets: deps.secrets,
            envSource: deps.envSource,
            clock: deps.clock,
            signal: deps.signal,
            onEvent: progress.onEvent,
            onStep: progress.onStep,
            onWarning: progress.onWarning,
            checkpoints,
          },
          plan.input,
        ),
      // A kind's own answer (a fork's patch) stands instead of a pull request.
      publish: async (job) => {
        answer = await plan.answer?.(job);
        return answer === undefined ? plan.publish(job) : undefined;
      },
    },
    {
      signal: deps.signal,
      checkpointed: checkpoints !== undefined,
      throwTransient: options.throwTransient,
      onPushed: (job) => progress.onPushed?.(job.branch),
      onWarning: progress.onWarning,
    },
  );
  const job = outcome.work;
  if (outcome.interrupted) return { job, conclusion: "interrupted" };
  if (answer !== undefined) {
    return { job, conclusion: "success", report: { markdown: answer, outcome: "success" } };
  }
  const pullRequest = outcome.published;
  const report = finalReport(job, config, deps.redact, pullRequest);
  if (plan.frame) {
    const { before, after } = plan.frame;
    report.markdown = [before, report.markdown, after].filter(Boolean).join("\n\n");
  }
  const conclusion =
    job.commits.length === 0 && report.outcome === "success" ? "no_changes" : report.outcome;
  return { job, ...(pullRequest ? { pullRequest } : {}), conclusion, report };
}

/** Stopped by a shutdown, in a job that can resume (see handedBack). */
export function isInterrupted(
  deps: Pick<JobDeps, "signal">,
  job: GitJobResult | undefined,
  checkpoints: CheckpointSettings | undefined,
): boolean {
  return handedBack(checkpoints !== undefined, deps.signal, job);
}
