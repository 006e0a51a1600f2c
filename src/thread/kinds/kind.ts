import type { RepoConfig } from "../../config/schema.js";
import type { StatusReporter } from "../../github/status.js";
import type { JobRequest } from "../../requests/request.js";
import type { ExecutedPlan } from "../execute-plan.js";
import type { DonePlan, PlanKind, ThreadPlan } from "../plan.js";
import type { ThreadServices } from "../services.js";

/**
 * A kind of thread job, defined once: what its tracking comment starts
 * with, and how it is planned. The agent's own request is planned by
 * run-job.ts (planRequest); the upkeep kinds (review, CI fix, branch
 * update) start from that plan and change what they need. kinds/index.ts
 * lists them.
 */
export interface ThreadKind {
  headline(request: JobRequest): string;
  /** Works on a pull request only; a fork's is refused with these words (none: forks are fine). */
  pullRequestOnly?: { forkRefusal?: string | undefined } | undefined;
  plan(ctx: TaskContext, pull?: PullTarget): Promise<TaskPlan>;
}

export type TaskPlan = ThreadPlan | DonePlan;

/** The pull request an upkeep kind works on. */
export interface PullTarget {
  repo: { owner: string; repo: string };
  pull: { number: number; headSha: string };
  pr: NonNullable<JobRequest["pullRequest"]>;
}

export interface TaskContext {
  services: ThreadServices;
  request: JobRequest;
  config: RepoConfig;
  status: StatusReporter;
  /** Resolves once the tracking comment is made (while the plan reads the thread) and its listeners know it. */
  tracking: Promise<void>;
  planRequest: (kind?: PlanKind) => Promise<ThreadPlan>;
  pullRequest: () => Promise<JobRequest["pullRequest"]>;
  /** Runs a plan now, on the job's events (a plan's read-only run, before the plan it leads to). */
  execute: (plan: ThreadPlan) => Promise<ExecutedPlan>;
  /** The job's id where there is one (the App's queue record): a go knows a plan it took itself. */
  jobId?: string | undefined;
  /** A CI failure on another bot's dependency pull request (tend_bot_prs): that bot's login. */
  dependencyBot?: string | undefined;
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

export const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
