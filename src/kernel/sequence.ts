import { errorMessage } from "../error-message.js";
import {
  isTransientFailure,
  isTransientJobFailure,
  TransientJobError,
} from "./transient-failure.js";

/**
 * The sequence every job kind goes through, whatever its work: do the work
 * (workspace, the kind's own steps, commits, verify, push), then publish it
 * (open or update the pull request), then let go of the checkpoint. Issue
 * and PR requests, repository prompts (thread/execute-plan.ts) and dependency groups
 * (deps/group/run-deps-group.ts) differ only in their `work` and `publish`.
 *
 * The rules it holds for all of them:
 * - a job cut short by a shutdown, with checkpoints on, is not published:
 *   its work is on its checkpoint ref and the queue runs it again;
 * - a fetch or push that met a server that was down is thrown (when asked)
 *   so the queue retries the job while it has attempts left;
 * - the checkpoint outlives the push until the work is published, so a job
 *   that dies in between resumes from it instead of starting over; after a
 *   final outcome, published or not, no stray ref is left.
 */

export interface KindWork {
  /** Set once the work is on its branch. */
  push?: unknown;
  /** Stopped by a shutdown: nothing was published. */
  interrupted?: unknown;
  /** The first thing that went wrong; `stage` names the step. */
  error?: { stage: string; message: string } | undefined;
  /** Deletes the job's checkpoint ref; called once the work is published or has failed for good. */
  dropCheckpoint?: (() => Promise<void>) | undefined;
}

export interface WorkThenPublish<W extends KindWork, P> {
  work(): Promise<W>;
  publish(work: W): Promise<P>;
}

export interface SequenceOptions<W> {
  signal?: AbortSignal | undefined;
  /** Checkpoints are on: a job stopped by a shutdown can resume, so it is handed back unpublished. */
  checkpointed: boolean;
  /** Throw a TransientJobError when the work's fetch or push met a server that was down. */
  throwTransient?: boolean | undefined;
  /** The work is on its branch, not yet published. */
  onPushed?: ((work: W) => Promise<void> | void) | undefined;
  onWarning?: ((message: string) => void) | undefined;
}

export type SequenceResult<W, P> =
  | { work: W; interrupted: true }
  | { work: W; interrupted: false; published: P };

/** Stopped by a shutdown, in a job that can resume: nothing is published, the queue runs it again. */
export function handedBack(
  checkpointed: boolean,
  signal: AbortSignal | undefined,
  work: KindWork | undefined,
): boolean {
  return checkpointed && (work?.interrupted !== undefined || signal?.aborted === true);
}

export async function runJobSequence<W extends KindWork, P>(
  kind: WorkThenPublish<W, P>,
  options: SequenceOptions<W>,
): Promise<SequenceResult<W, P>> {
  const work = await kind.work();
  if (handedBack(options.checkpointed, options.signal, work)) return { work, interrupted: true };
  if (work.push) await options.onPushed?.(work);
  if (options.throwTransient && work.error && !work.push && isTransientJobFailure(work.error)) {
    throw new TransientJobError(work.error.stage, work.error.message);
  }
  const dropCheckpoint = async () => {
    await work
      .dropCheckpoint?.()
      .catch((error: unknown) =>
        options.onWarning?.(`could not delete the checkpoint ref: ${errorMessage(error)}`),
      );
  };
  let published: P;
  try {
    published = await kind.publish(work);
  } catch (error) {
    // A refusal here (GitHub would not open the pull request) is the
    // caller's to report. A retry keeps the checkpoint, so that run resumes
    // from it; a final failure leaves no stray ref.
    if (!(options.throwTransient && isTransientFailure(error))) await dropCheckpoint();
    throw error;
  }
  await dropCheckpoint();
  return { work, interrupted: false, published };
}
