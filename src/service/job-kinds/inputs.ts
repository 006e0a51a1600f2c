import type { JobQueue, JobRecord, NewJob, RunningJob } from "../../queue/types.js";
import { planWatchSchema } from "../../requests/plan-watch.js";
import { jobRequestSchema } from "../../requests/request.js";
import { scheduledRepositorySchema } from "../../requests/scheduled-repository.js";
import { baseMovedSchema } from "../../requests/upkeep-triggers.js";

/**
 * The kinds of job the service queues, each with the schema of its input
 * (one per request; more than one when rapid requests were coalesced). The
 * queue reads every input with its kind's schema (queue/job-inputs.ts), so
 * a record is a union on `kind` whose inputs have that kind's type. What
 * each kind runs is in its own file beside this one (index.ts lists them).
 * Apart from the runs because the queue opens before the jobs' code loads
 * (cli/worker-command.ts), and this imports only the input types.
 *
 * request: an issue or pull request thread's request (the upkeep tasks too);
 * deps: a repository's dependency run; base_moved: a branch moved, and its
 * job queues an update for each of the bot's pull requests on it;
 * plan_watch: a posted plan, looked at now and then for a writer's 👍. Workflow
 * prompts (dispatch, schedule) have no kind: only the Action runs them, in
 * its own job, never through a queue.
 */
export const jobInputSchemas = {
  request: jobRequestSchema,
  deps: scheduledRepositorySchema,
  base_moved: baseMovedSchema,
  plan_watch: planWatchSchema,
} as const;

export type JobInputs = typeof jobInputSchemas;
export type JobKind = keyof JobInputs;

/** The service's queue: it holds these kinds. */
export type ServiceQueue = JobQueue<JobInputs>;
/** A job the service queues: a kind and its input. */
export type ServiceJob = NewJob<JobInputs>;
/** A record of kind K, its inputs read with K's schema. */
export type KindRecord<K extends JobKind> = JobRecord<Pick<JobInputs, K>>;
/** A running job of kind K. */
export type KindJob<K extends JobKind> = RunningJob<Pick<JobInputs, K>>;
