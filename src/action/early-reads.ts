import { DEFAULT_CONFIG_PATH } from "../config/config-path.js";
import { readEarly } from "../github/rest/http-fetch.js";
import { workflowToken } from "./early-event.js";

/**
 * The GitHub API reads a job begins with, sent by the entry (run.ts) beside
 * the early fetch, before the rest of the bundle loads: on GitHub each is a
 * round trip of 50-300 ms on the way to the agent's first request, and the
 * loading (about a hundred milliseconds of this thread) then overlaps them
 * instead of coming first. The job's own requests for the same URLs take
 * these answers (http-fetch.ts `readEarly`). A URL the job then does not
 * ask for was read for nothing, so they are sent only where the job surely
 * asks, with the workflow's token in mode auto:
 * - a new comment, review comment or review on an open, unlocked issue or
 *   pull request, or a new issue, by a person, that names the trigger phrase (the input's,
 *   else the default; a phrase set in the config is not known yet): the
 *   commenter's permission and the config (thread/admit.ts), and the
 *   thread: on an issue its comments and the open pull requests, on a pull
 *   request its comments, reviews and review comments, the pull request
 *   (when the payload has not got it) and its files;
 * - a workflow_dispatch with a prompt: the config (event-jobs.ts
 *   `runRepository`).
 * Both read the config on the default branch, at the input's path if set.
 * Returns the URLs read.
 */
export function startEarlyReads(
  env: Record<string, string | undefined>,
  payload: unknown,
): string[] {
  const token = workflowToken(env);
  if (!token) return [];
  // deps and review modes begin otherwise.
  if ((env.INPUT_MODE?.trim().toLowerCase() || "auto") !== "auto") return [];
  const event = payload as EventPayload | null;
  const repo = event?.repository;
  if (typeof repo?.full_name !== "string" || typeof repo.default_branch !== "string") return [];
  const api = (env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, "");
  const at = `${api}/repos/${repo.full_name}`;
  const configPath = env.INPUT_CONFIG_PATH?.trim() || DEFAULT_CONFIG_PATH;
  // As Octokit spells them (its URL templates, its parameters' order).
  const config = `${at}/contents/${encodeURIComponent(configPath)}?ref=${encodeURIComponent(repo.default_branch)}`;
  const comment = commentOf(env.GITHUB_EVENT_NAME, event as EventPayload);
  const urls = comment
    ? commentReads(comment, at, config, env.INPUT_TRIGGER_PHRASE)
    : env.GITHUB_EVENT_NAME === "workflow_dispatch" && env.INPUT_PROMPT?.trim()
      ? [config]
      : [];
  const headers = {
    accept: "application/vnd.github.v3+json",
    authorization: `token ${token}`,
    "user-agent": "patchwright-action",
  };
  for (const url of urls) readEarly(url, headers);
  return urls;
}

/** A comment's words, where it was made and by whom, as the three comment events and a new issue give them. */
interface CommentEvent {
  body: unknown;
  number: unknown;
  thread: { state?: unknown; locked?: unknown } | undefined;
  sender: EventPayload["sender"];
  /** On a pull request, and whether its payload lacks the pull request itself (issue_comment's). */
  pullRequest: "none" | "in-payload" | "read";
}

function commentOf(eventName: string | undefined, event: EventPayload): CommentEvent | undefined {
  const { issue, pull_request: pull, sender } = event;
  if (eventName === "issue_comment" && event.action === "created") {
    const pullRequest = issue?.pull_request === undefined ? "none" : "read";
    return { body: event.comment?.body, number: issue?.number, thread: issue, sender, pullRequest };
  }
  if (eventName === "issues" && event.action === "opened" && issue?.pull_request === undefined) {
    return { body: issue?.body, number: issue?.number, thread: issue, sender, pullRequest: "none" };
  }
  if (eventName === "pull_request_review_comment" && event.action === "created") {
    const body = event.comment?.body;
    return { body, number: pull?.number, thread: pull, sender, pullRequest: "in-payload" };
  }
  if (eventName === "pull_request_review" && event.action === "submitted") {
    const body = event.review?.body;
    return { body, number: pull?.number, thread: pull, sender, pullRequest: "in-payload" };
  }
  return undefined;
}

function commentReads(
  comment: CommentEvent,
  at: string,
  config: string,
  triggerPhrase: string | undefined,
): string[] {
  const { body, number, thread, sender } = comment;
  if (typeof number !== "number") return [];
  // The job declines a closed or locked thread before it reads anything more.
  if (thread?.state === "closed" || thread?.locked === true) return [];
  if (typeof sender?.login !== "string" || sender.type === "Bot") return [];
  if (typeof body !== "string") return [];
  const phrase = triggerPhrase?.trim() || "@agent";
  if (!body.toLowerCase().includes(phrase.toLowerCase())) return [];
  const asked = [`${at}/collaborators/${encodeURIComponent(sender.login)}/permission`, config];
  if (comment.pullRequest === "none") {
    return [
      `${at}/issues/${number}/comments?per_page=100`,
      `${at}/pulls?state=open&per_page=100`,
      ...asked,
    ];
  }
  return [
    `${at}/issues/${number}/comments?per_page=100`,
    `${at}/pulls/${number}/reviews?per_page=100`,
    `${at}/pulls/${number}/comments?per_page=100`,
    ...asked,
    // A review's payload holds the pull request; an issue comment's only points at it.
    ...(comment.pullRequest === "read" ? [`${at}/pulls/${number}`] : []),
    `${at}/pulls/${number}/files?per_page=100`,
  ];
}

interface EventPayload {
  action?: unknown;
  issue?: {
    number?: unknown;
    body?: unknown;
    pull_request?: unknown;
    state?: unknown;
    locked?: unknown;
  };
  pull_request?: { number?: unknown; state?: unknown; locked?: unknown };
  comment?: { body?: unknown };
  review?: { body?: unknown };
  sender?: { login?: unknown; type?: unknown };
  repository?: { full_name?: unknown; default_branch?: unknown };
}
