import type { Redactor } from "../agent/redact.js";
import type { GitHubClient } from "../github/octokit.js";
import { createStatusReporter, type StatusReporter } from "../github/status.js";
import type { JobRequest } from "../requests/request.js";

/**
 * The wiring the App and the Action share: how a request gets its tracking
 * comment. Entry points differ only in where the token and the logger come from.
 */

export interface RequestStatusServices {
  octokit: GitHubClient;
  clock: { now(): number };
  redact: Redactor;
  /** Link to the job's log (an Actions run), shown in the tracking comment. */
  jobUrl?: string | undefined;
  onError?: ((error: unknown, action: string) => void) | undefined;
  /** The job's tracking comment from an earlier attempt, to edit instead of posting another. */
  existingComment?: { id: number; url: string } | undefined;
  /** A hidden line naming the job in its comments (see StatusReporterDeps.marker). */
  marker?: string | undefined;
}

/** The tracking comment and reactions for one request, on its issue or pull request. */
export function createRequestStatus(
  deps: RequestStatusServices,
  request: JobRequest,
): StatusReporter {
  return createStatusReporter({
    octokit: deps.octokit,
    repo: { owner: request.repo.owner, repo: request.repo.name },
    issueNumber: request.target.number,
    source: request.source,
    clock: deps.clock,
    redact: deps.redact,
    jobUrl: deps.jobUrl,
    onError: deps.onError,
    existingComment: deps.existingComment,
    marker: deps.marker,
  });
}
