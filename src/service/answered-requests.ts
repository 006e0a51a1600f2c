import { reactToTrigger } from "../github/reactions.js";
import type { StatusReporter } from "../github/status.js";
import { renderAnsweredRequests } from "../report/final-report.js";
import type { JobRequest } from "../requests/request.js";
import { isUpkeepEvent } from "../thread/start-rules.js";
import type { WorkerServices } from "./worker-services.js";

/**
 * A job that took several requests (rapid mentions on one thread, folded
 * into the job waiting there) answers each where it was asked: the final
 * report lists them all with links, and every one's trigger gets the job's
 * 🚀 or 😕, not only the last one's. Each folded request got its 👀 when it
 * was stored (app/index.ts).
 */

export type Reaction = "rocket" | "confused";

/** Reacts on the request's trigger; a failure is logged, never thrown (the answer is given). */
export function reactTo(
  services: Pick<WorkerServices, "github" | "log">,
  installationId: number,
  jobId: string,
): (request: JobRequest, content: Reaction) => Promise<void> {
  const octokit = services.github.installation(installationId);
  return async (request, content) => {
    const repo = { owner: request.repo.owner, repo: request.repo.name };
    await reactToTrigger(octokit, repo, request.target.number, request.source, content).catch(
      (error: unknown) =>
        services.log.warn({ err: error, job: jobId }, `could not add the ${content} reaction`),
    );
  };
}

/**
 * `status` (the last request's reporter) with a final word for every
 * request in `requests` (oldest first, the last one `status`'s own). A job
 * with one request gets `status` as it is.
 */
export function answeringEach(
  status: StatusReporter,
  requests: readonly JobRequest[],
  react: (request: JobRequest, content: Reaction) => Promise<void>,
): StatusReporter {
  // Events (CI failed, a branch moved) have no requester to answer.
  const asked = requests.filter((request) => !isUpkeepEvent(request));
  if (asked.length < 2) return status;
  const last = requests.at(-1);
  const list = renderAnsweredRequests(
    asked.map((request) => ({
      login: request.requester.login,
      url: request.source.htmlUrl ?? request.target.htmlUrl,
    })),
  );
  return {
    ...status,
    async finish(markdown, outcome) {
      await status.finish(`${markdown}\n\n${list}`, outcome);
      const content = outcome === "success" ? "rocket" : "confused";
      for (const request of asked) if (request !== last) await react(request, content);
    },
  };
}
