import { createRedactor } from "../agent/redact.js";
import type { RepoConfig } from "../config/schema.js";
import { detectProjectTools } from "../deps/managers/project-tools-source.js";
import { checkpointRef } from "../git/commit/checkpoint-ref.js";
import { installationAccess, installationToken } from "../github/client.js";
import { findMarkedComment, type StatusReporter } from "../github/status.js";
import { fanOut } from "../kernel/events.js";
import { cancelledBy, DEFAULT_MAX_ATTEMPTS, type JobResult, retryDelayMs } from "../queue/types.js";
import type { JobRequest } from "../requests/request.js";
import { admitRequest, askedByDefault } from "../thread/admit.js";
import { createRequestStatus } from "../thread/request-status.js";
import { runJob } from "../thread/run-job.js";
import { isUpkeepEvent } from "../thread/start-rules.js";
import { readThreadAhead } from "../thread/thread-reads.js";
import { answeringEach, reactTo } from "./answered-requests.js";
import type { KindJob } from "./job-kinds/inputs.js";
import { PLAN_WAIT_MS, planWatchJob } from "./job-kinds/plan-watch.js";
import { createJobRecorder } from "./jobs-view/recorder.js";
import { queueNote, watchQueue } from "./queue-note.js";
import type { WorkerServices } from "./worker-services.js";

/**
 * A request job as a worker runs it from its record: every request folded
 * into it is admitted (oldest first; each requester gets their 👀 or their
 * answer, and at the end the job's 🚀 or 😕), the token is minted, the
 * tracking comment from an earlier attempt is found again, and the job runs
 * with checkpoints, so a deploy or a crash costs at most the turn in
 * progress. A check GitHub keeps failing hands the job back to the queue
 * like any transient failure; on the last attempt the requester is told
 * what failed and to ask again.
 */

export const PAUSED_ANSWER =
  "⏸️ Paused: the service is restarting. This job goes back to the queue and resumes from its last checkpoint; this comment will be updated.";

/** The last word of a job someone cancelled (from the job pages): who, and where its work is. */
export function cancelledAnswer(by: string, checkpoint: string | undefined, ref: string): string {
  const saved = checkpoint
    ? `The work done so far is saved at commit \`${checkpoint.slice(0, 7)}\` (ref \`${ref}\`): fetch it with \`git fetch origin ${ref}\`.`
    : "Nothing had been saved yet.";
  return `🛑 Cancelled by @${by}. ${saved} Ask again to start over.`;
}

export async function runRequestRecord(
  services: WorkerServices,
  job: KindJob<"request">,
): Promise<JobResult> {
  const { record } = job;
  // Read with the request kind's schema by the queue (service/job-kinds/inputs.ts).
  const requests = record.inputs;
  if (requests.length === 0 || record.installationId === undefined) {
    return { status: "failed", message: "the job record holds no request this version can read" };
  }
  const octokit = services.github.installation(record.installationId);
  const botLogin = await services.botLogin();
  const known = services.secrets;
  const onError = (error: unknown, action: string) =>
    services.log.warn({ err: error, action, job: record.id }, "status update failed");
  const redact = createRedactor(known.map((secret) => secret.value));
  const react = reactTo(services, record.installationId, record.id);
  // Before the last attempt, a check GitHub keeps failing sends the job back
  // to the queue, whose waits are the retries; the last one answers.
  const retryLater = record.attempts < (services.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  // One thread per job: read beside the admission's checks when its newest request asks the bot.
  const newest = requests.at(-1);
  const threadReads =
    newest && askedByDefault({ botLogin, ceilings: services.ceilings }, newest)
      ? readThreadAhead(octokit, newest)
      : undefined;
  const admitted: Array<{ request: JobRequest; config: RepoConfig }> = [];
  // The admitted requests' 👀, on their way beside the job's start; the job ends after them.
  const acknowledged: Array<Promise<void>> = [];
  for (const [index, request] of requests.entries()) {
    // A mention folded into this job after the first: its 👀 came when it was stored (app/index.ts).
    const folded = index > 0 && !isUpkeepEvent(request);
    // Its own reporter: the 👀, or the answer to a request that does not start.
    const answers = createRequestStatus(
      { octokit, clock: services.clock, redact, onError },
      request,
    );
    const admission = await admitRequest(
      { octokit, botLogin, retryLater, retryDelaysMs: [], ceilings: services.ceilings },
      request,
      folded ? { ...answers, acknowledge: async () => {} } : answers,
    );
    if (admission.admitted) {
      admitted.push({ request, config: admission.config });
      acknowledged.push(answers.settled());
      continue;
    }
    if (admission.reason === "check_failed" && retryLater) {
      await Promise.all(acknowledged);
      return { status: "retry", message: `${admission.checkFailure}: ${admission.checkError}` };
    }
    services.log.info({ job: record.id, reason: admission.reason }, "request not admitted");
    // The 👀 it got when stored ends here (a failed check was answered with 😕 already).
    if (folded && admission.reason !== "check_failed") await react(request, "confused");
  }
  const main = admitted.at(-1);
  if (!main) return { status: "done", conclusion: "not_admitted" };

  // Minted when the job starts: a job that waited in the queue still gets a fresh one.
  const { token, permissions } = await installationAccess(octokit);
  const marker = `patchwright-job ${record.id}`;
  // A run after a crash finds the comment the last run made, even one it
  // had no time to record.
  const existingComment =
    record.trackingComment ??
    (record.attempts > 1
      ? await findMarkedComment(octokit, {
          owner: main.request.repo.owner,
          repo: main.request.repo.name,
          issueNumber: main.request.target.number,
          source: main.request.source,
          marker,
          since: new Date(record.createdAt - 60_000),
        }).catch(() => undefined)
      : undefined);
  const redactAll = redact.including([token]);
  // The job page's transcript, redacted like the comment (the queue logs the states).
  const recorder = services.eventLog
    ? createJobRecorder({
        log: services.eventLog,
        jobId: record.id,
        redact: redactAll,
        clock: services.clock,
        stats: record.stats,
        saveStats: (stats) => job.update({ stats }),
        onError: (error) => services.log.warn({ err: error, job: record.id }, "event log"),
      })
    : undefined;
  let checkpoint = record.checkpoint;
  // Every request the job took gets the final word, not only the last one.
  const answering: StatusReporter = answeringEach(
    createRequestStatus(
      {
        octokit,
        clock: services.clock,
        redact: redactAll,
        onError,
        existingComment,
        marker,
        jobUrl: services.jobPageUrl?.(record.id),
      },
      main.request,
    ),
    admitted.map((a) => a.request),
    react,
  );
  const status: StatusReporter = recorder
    ? {
        ...answering,
        async finish(markdown, outcome) {
          recorder.report(markdown, outcome);
          await answering.finish(markdown, outcome);
        },
      }
    : answering;
  const watcher = watchQueue(
    job,
    (waiting) => status.note(queueNote(waiting)),
    services.setTimer,
    services.queuePollMs,
  );
  try {
    const outcome = await runJob(
      {
        octokit,
        // Renewed as it nears its end: the job's last push may come past the first token's hour.
        gitToken: () => installationToken(octokit),
        createModel: services.createModel,
        cacheDir: services.cacheDir,
        // Chosen once per process, when a job first opens a sandbox.
        sandbox: services.sandbox,
        secrets: [...known, { name: "the installation token", value: token }],
        envSource: services.env,
        clock: services.clock,
        projectTools: detectProjectTools,
        botLogin,
        redact: redactAll,
        signal: job.signal,
        canPushWorkflows: permissions.workflows === "write",
        jobPage: services.jobPageUrl?.(record.id),
      },
      main.request,
      main.config,
      status,
      {
        earlierRequests: admitted.slice(0, -1).map((a) => a.request),
        checkpointRef: checkpointRef(record.id),
        // The job record keeps what a re-run needs; the log takes warnings;
        // the event log, everything the job page shows.
        events: fanOut(
          {
            checkpoint: (sha) => {
              checkpoint = sha;
              return job.update({ checkpoint: sha });
            },
            warning: (message) => services.log.warn({ job: record.id }, message),
            tracking: (comment) => job.update({ trackingComment: comment }),
            pushed: (branch) => job.update({ branch }),
          },
          recorder?.events,
        ),
        pushedBranch: record.branch,
        jobId: record.id,
        threadReads,
        retry: {
          attempt: record.attempts,
          of: services.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
          delayMs: retryDelayMs(record.attempts),
        },
      },
    );
    watcher.stop();
    if (outcome.conclusion === "interrupted") {
      // Cancelled: stopped like a shutdown (the work is on its checkpoint),
      // but this is the last word; the queue ends the job.
      const by = cancelledBy(job.signal);
      if (by !== undefined) {
        await status.finish(cancelledAnswer(by, checkpoint, checkpointRef(record.id)), "failure");
        return { status: "interrupted" };
      }
      await status.suspend(PAUSED_ANSWER);
      return { status: "interrupted" };
    }
    // GitHub or git failed in a way that may pass: the comment says when it tries again.
    if (outcome.retry !== undefined) {
      await status.settled();
      return { status: "retry", message: outcome.retry };
    }
    await status.settled();
    if (outcome.planPosted) await watchPlan(services, main, outcome.planPosted, record.id);
    // A plan's read-only run named a branch it never pushed.
    if (outcome.job?.branch && !outcome.planPosted)
      await job.update({ branch: outcome.job.branch });
    return {
      status: "done",
      conclusion: outcome.conclusion,
      ...(outcome.pullRequest
        ? { pullRequest: { number: outcome.pullRequest.number, url: outcome.pullRequest.url } }
        : {}),
    };
  } finally {
    watcher.stop();
    await Promise.all(acknowledged);
    if (recorder) {
      await job.update({ stats: recorder.stats() }).catch(() => {});
      await recorder.flush();
    }
  }
}

/**
 * A plan posted on the conversation waits for its 👍 (GitHub sends no
 * webhook for reactions): a plan_watch job looks for one. A plan answered
 * in a review thread goes ahead with `@agent go` only. A watch that cannot
 * be stored is logged; `@agent go` still works.
 */
async function watchPlan(
  services: WorkerServices,
  main: { request: JobRequest; config: RepoConfig },
  plan: { id: number; url: string },
  jobId: string,
): Promise<void> {
  const { request, config } = main;
  if (!services.submit || request.installationId === undefined) return;
  if (request.source.kind === "review_comment") return;
  const since = services.clock.now();
  await services
    .submit(
      planWatchJob({
        ...request,
        installationId: request.installationId,
        plan,
        triggerPhrase: config.triggerPhrase,
        since,
        until: since + PLAN_WAIT_MS,
      }),
    )
    .catch((error: unknown) =>
      services.log.warn({ err: error, job: jobId }, "could not store the plan's 👍 watch"),
    );
}
