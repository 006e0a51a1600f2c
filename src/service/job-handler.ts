import { pruneCache } from "../git/mirror/cache.js";
import type { JobHandler, JobResult } from "../queue/types.js";
import { jobKindOf } from "./job-kinds/index.js";
import type { JobInputs, KindJob } from "./job-kinds/inputs.js";
import type { WorkerServices } from "./worker-services.js";

/**
 * Turns job records into runs, whatever process holds them: each kind's
 * definition (job-kinds/) runs its records, and reports one out of
 * attempts where its requester looks, never left saying "working".
 */
export function createJobHandler(services: WorkerServices): JobHandler<JobInputs> {
  const runKind = (job: KindJob<keyof JobInputs>): Promise<JobResult> => {
    const kind = jobKindOf(job.record.kind);
    if (!kind) {
      return Promise.resolve({
        status: "failed",
        message: `this worker does not run "${job.record.kind}" jobs`,
      });
    }
    return kind.run(job, services);
  };
  return {
    async run(job) {
      const started = services.clock.now();
      services.log.info(
        { job: job.record.id, key: job.record.key, attempt: job.record.attempts },
        "job started",
      );
      const result = await runKind(job);
      services.log.info(
        { job: job.record.id, key: job.record.key, result, ms: services.clock.now() - started },
        "job finished",
      );
      await pruneCache(services.cacheDir, { maxBytes: services.cacheBytes }).catch(
        (error: unknown) => services.log.warn({ err: error }, "could not prune the cache"),
      );
      return result;
    },
    async giveUp(record, reason) {
      services.log.error({ job: record.id, key: record.key, reason }, "job given up");
      await jobKindOf(record.kind)?.giveUp?.(record, reason, services);
    },
  };
}
