import { readThread, type ThreadLists } from "../github/context.js";
import type { GitHubClient } from "../github/octokit.js";
import { listOpenPulls, type OpenPulls } from "../github/pulls.js";
import type { JobRequest } from "../requests/request.js";

/**
 * What a request's plan reads through the API before its agent can start:
 * the thread, and an issue's open pull requests (where the bot's own one for
 * it is looked for). A caller starts them beside the admission's checks, a
 * round trip sooner; the plan takes each once (a plan made again reads
 * afresh), and reads for itself what was not read ahead.
 */
export interface ThreadReads {
  thread(): Promise<ThreadLists> | undefined;
  openPulls(): Promise<OpenPulls> | undefined;
}

export function readThreadAhead(octokit: GitHubClient, request: JobRequest): ThreadReads {
  let thread: Promise<ThreadLists> | undefined = readThread(octokit, request);
  let pulls =
    request.target.kind === "issue"
      ? listOpenPulls(octokit, { owner: request.repo.owner, repo: request.repo.name })
      : undefined;
  // Taken by the plan, which sees a failure; or never, when no job starts.
  thread.catch(() => {});
  pulls?.catch(() => {});
  return {
    thread() {
      const taken = thread;
      thread = undefined;
      return taken;
    },
    openPulls() {
      const taken = pulls;
      pulls = undefined;
      return taken;
    },
  };
}
