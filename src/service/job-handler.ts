import { createRedactor } from "../agent/redact.js";
import { pruneCache } from "../git/cache.js";
import { checkpointRef } from "../git/checkpoint-ref.js";
import { findMarkedComment } from "../github/status.js";
import type { JobHandler, JobRecord, JobResult, RunningJob } from "../queue/types.js";
import { secretsInEnv } from "../secrets/patterns.js";
import { createRequestStatus } from "../thread/request-status.js";
import { answeringEach, reactTo } from "./answered-requests.js";
import { runBaseMovedRecord } from "./base-moved-job.js";
import { runDepsRecord } from "./deps-job.js";
import { requestsOf, runRequestRecord } from "./request-job.js";
import type { WorkerDeps } from "./worker-deps.js";

/**
 * Turns job records into runs, whatever process holds them: each kind has
 * its runner, and a job out of attempts is reported where its requester
 * looks, never left saying "working".
 */
export function createJobHandler(deps: WorkerDeps): JobHandler {
  const runKind = (job: RunningJob): Promise<JobResult> => {
    switch (job.record.kind) {
      case "request":
        return runRequestRecord(deps, job);
      case "deps":
        return runDepsRecord(deps, job);
      case "base_moved":
        return runBaseMovedRecord(deps, job);
      default:
        return Promise.resolve({
          status: "failed",
          message: `this worker does not run "${job.record.kind}" jobs`,
        });
    }
  };
  return {
    async run(job) {
      const started = deps.clock.now();
      deps.log.info(
        { job: job.record.id, key: job.record.key, attempt: job.record.attempts },
        "job started",
      );
      const result = await runKind(job);
      deps.log.info(
        { job: job.record.id, key: job.record.key, result, ms: deps.clock.now() - started },
        "job finished",
      );
      await pruneCache(deps.cacheDir, { maxBytes: deps.cacheBytes }).catch((error: unknown) =>
        deps.log.warn({ err: error }, "could not prune the cache"),
      );
      return result;
    },
    async giveUp(record, reason) {
      deps.log.error({ job: record.id, key: record.key, reason }, "job given up");
      if (record.kind !== "request") return;
      await reportGivenUp(deps, record, reason);
    },
  };
}

/**
 * The last word on the tracking comment (or a new one): why it stopped, and
 * where the work is; every request folded into the job gets its 😕 too.
 */
async function reportGivenUp(deps: WorkerDeps, record: JobRecord, reason: string): Promise<void> {
  const requests = requestsOf(record.inputs);
  const request = requests.at(-1);
  if (!request || record.installationId === undefined) return;
  const octokit = deps.github.installation(record.installationId);
  const marker = `patchwright-job ${record.id}`;
  const existingComment =
    record.trackingComment ??
    (await findMarkedComment(octokit, {
      owner: request.repo.owner,
      repo: request.repo.name,
      issueNumber: request.target.number,
      source: request.source,
      marker,
      since: new Date(record.createdAt - 60_000),
    }).catch(() => undefined));
  const status = answeringEach(
    createRequestStatus(
      {
        octokit,
        clock: deps.clock,
        redact: createRedactor(secretsInEnv(deps.env).map((secret) => secret.value)),
        onError: (error, action) =>
          deps.log.warn({ err: error, action, job: record.id }, "status update failed"),
        existingComment,
        marker,
      },
      request,
    ),
    requests,
    reactTo(deps, record.installationId, record.id),
  );
  await status.finish(givenUpAnswer(record, reason, request.repo.htmlUrl), "failure");
}

export function givenUpAnswer(
  record: JobRecord,
  reason: string,
  repoUrl: string | undefined,
): string {
  const lines = [`❌ I stopped working on this request: ${reason}, and did not finish.`];
  // The embedded queue's reason is only the count: the last failure says what went wrong.
  const last = record.outcome?.conclusion === "retrying" ? record.outcome.message : undefined;
  if (last && !reason.includes(last)) lines.push(`The last attempt failed: ${last.split("\n")[0]}`);
  if (record.checkpoint) {
    const sha = record.checkpoint;
    const ref = checkpointRef(record.id);
    const commit = repoUrl
      ? `[\`${sha.slice(0, 7)}\`](${repoUrl}/commit/${sha})`
      : `\`${sha.slice(0, 7)}\``;
    lines.push(
      `The work done so far is saved at commit ${commit} (ref \`${ref}\`): fetch it with \`git fetch origin ${ref}\`.`,
    );
  } else {
    lines.push("Nothing had been saved yet.");
  }
  lines.push("Ask again to start over.");
  return lines.join("\n\n");
}
