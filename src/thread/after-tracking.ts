import type { JobEvents } from "../kernel/events.js";

/**
 * The job's events, with what a listener keeps for a re-run (the pushed
 * branch, each checkpoint) told only once the tracking comment is there and
 * told: a job record then never gets a checkpoint without its comment, and
 * two writes of the record never race.
 */
export function afterTracking(events: JobEvents, tracking: Promise<void>): JobEvents {
  return {
    ...events,
    pushed: async (branch) => {
      await tracking;
      await events.pushed(branch);
    },
    checkpoint: async (sha) => {
      await tracking;
      await events.checkpoint(sha);
    },
  };
}
