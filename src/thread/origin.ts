import type { JobRequest } from "../requests/request.js";

/**
 * Where a job's pull request comes from, apart from the report that shows it
 * (report.ts): the job names it as it starts, the report is the job's end.
 */

/** Who asked and where, for the PR body's footer; the issue it closes, if any. */
export interface PullRequestOrigin {
  closes?: number | undefined;
  requester: string;
  url?: string | undefined;
  /** The job's page on the App's server, when its pages are on. */
  jobPage?: string | undefined;
}

export function originOf(request: JobRequest): PullRequestOrigin {
  return {
    closes: request.target.kind === "issue" ? request.target.number : undefined,
    requester: request.requester.login,
    url: request.source.htmlUrl ?? request.target.htmlUrl,
  };
}
