import { createRedactor } from "../../agent/redact.js";
import { checkpointRef } from "../../git/commit/checkpoint-ref.js";
import { findMarkedComment } from "../../github/status.js";
import { createRequestStatus } from "../../thread/request-status.js";
import { answeringEach, reactTo } from "../answered-requests.js";
import type { ViewEvent } from "../jobs-view/types.js";
import { runRequestRecord } from "../request-job.js";
import type { WorkerServices } from "../worker-services.js";
import type { KindRecord } from "./inputs.js";
import type { JobKindDefinition } from "./kind.js";

/**
 * A thread's request (the upkeep tasks too): run by request-job.ts; out of
 * attempts, its requester is told on the thread, never left with "working".
 */
export const requestKind: JobKindDefinition<"request"> = {
  kind: "request",
  run: (job, services) => runRequestRecord(services, job),
  giveUp: reportGivenUp,
};

/**
 * The last word on the tracking comment (or a new one): why it stopped, and
 * where the work is; every request folded into the job gets its 😕 too.
 */
async function reportGivenUp(
  record: KindRecord<"request">,
  reason: string,
  services: WorkerServices,
): Promise<void> {
  const requests = record.inputs;
  const request = requests.at(-1);
  if (!request || record.installationId === undefined) return;
  const octokit = services.github.installation(record.installationId);
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
  const redact = createRedactor(services.secrets.map((secret) => secret.value));
  const status = answeringEach(
    createRequestStatus(
      {
        octokit,
        clock: services.clock,
        redact,
        onError: (error, action) =>
          services.log.warn({ err: error, action, job: record.id }, "status update failed"),
        existingComment,
        marker,
      },
      request,
    ),
    requests,
    reactTo(services, record.installationId, record.id),
  );
  const answer = givenUpAnswer(record, reason, request.repo.htmlUrl);
  await status.finish(answer, "failure");
  // The job page's last word too, redacted like everything it shows.
  await services.eventLog
    ?.append(record.id, {
      at: services.clock.now(),
      type: "report",
      markdown: redact(answer),
      outcome: "failure",
    } satisfies ViewEvent)
    .catch((error: unknown) => services.log.warn({ err: error, job: record.id }, "event log"));
}

function givenUpAnswer(
  record: KindRecord<"request">,
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
