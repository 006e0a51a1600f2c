import type {
  JobHandler,
  JobRecord,
  JobResult,
  NewJob,
  RunningJob,
} from "../../src/queue/types.js";

/** What both queue back ends' tests submit and run: numbered jobs, and runs finished by hand. */

let deliveries = 0;

/** A new request job on `key`, with its own delivery and triggering comment. */
export function job(key: string, extra: Partial<NewJob> = {}): NewJob {
  deliveries += 1;
  return {
    kind: "request",
    key,
    deliveryId: `delivery-${deliveries}`,
    triggerId: `${key}:comment:${deliveries}`,
    installationId: 1,
    input: { n: deliveries },
    ...extra,
  };
}

/** A handler whose runs the test finishes by hand; an abort finishes a run as interrupted. */
export function manualHandler() {
  const started: Array<{ job: RunningJob; finish(result: JobResult): void }> = [];
  const gaveUp: JobRecord[] = [];
  const handler: JobHandler = {
    run: (running) =>
      new Promise<JobResult>((finish) => {
        started.push({ job: running, finish });
        running.signal.addEventListener("abort", () => finish({ status: "interrupted" }));
      }),
    giveUp: async (record) => {
      gaveUp.push(record);
    },
  };
  return { handler, started, gaveUp };
}
