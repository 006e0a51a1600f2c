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
  const repo = { owner: request.repo.owner, repo: request.repo.name };
  return {
    thread: takeOnce(readThread(octokit, request)),
    openPulls:
      request.target.kind === "issue" ? takeOnce(listOpenPulls(octokit, repo)) : () => undefined,
  };
}

/**
 * A read started early, taken once. A failure is the taker's to see, as if
 * it had read then (the same tries: the client's own retries, then the
 * job's); one nobody takes (no job starts) fails quietly.
 */
function takeOnce<T>(early: Promise<T>): () => Promise<T> | undefined {
  early.catch(() => {});
  let pending: Promise<T> | undefined = early;
  return () => {
    const taken = pending;
    pending = undefined;
    return taken;
  };
}
