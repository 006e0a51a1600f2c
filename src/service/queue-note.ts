import { realTimer, type SetTimer } from "../queue/timer.js";
import type { RunningJob } from "../queue/types.js";

/**
 * The running job's tracking comment says how many requests on the same
 * thread wait behind it, instead of each of them getting a reply of its
 * own: requests made while a job runs are folded into one follow-up job.
 */

const POLL_MS = 10_000;

export function queueNote(waiting: number): string | undefined {
  if (waiting <= 0) return undefined;
  const what =
    waiting === 1
      ? "1 more request on this thread is"
      : `${waiting} more requests on this thread are`;
  return `<sub>⏳ ${what} queued behind this job; they run next, together, and see this job's work.</sub>`;
}

/** Polls the queue while the job runs and hands each new count to `show`; stop() ends it. */
export function watchQueue(
  job: Pick<RunningJob, "waitingBehind">,
  show: (waiting: number) => void,
  setTimer: SetTimer = realTimer,
  everyMs: number = POLL_MS,
): { stop(): void } {
  let timer: { cancel(): void } | undefined;
  let stopped = false;
  let last = 0;
  const poll = async () => {
    const waiting = await job.waitingBehind().catch(() => last);
    if (stopped) return;
    if (waiting !== last) show(waiting);
    last = waiting;
    timer = setTimer(() => void poll(), everyMs);
  };
  timer = setTimer(() => void poll(), 0);
  return {
    stop() {
      stopped = true;
      timer?.cancel();
    },
  };
}
