import { DEFAULT_CONFIG_PATH, DEFAULT_LABEL, DEFAULT_TRIGGER_PHRASE } from "../config/defaults.js";
import { readEarly } from "../github/rest/http-fetch.js";
import { PULL_REQUEST_ACTIONS, workflowToken } from "./early-event.js";

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
 *   pull request, or a new issue, by a person, that names the trigger
 *   phrase (the input's, else the default; a phrase set in the config is
 *   not known yet), or the default label added to such an issue by a
 *   person, or a pull_request event that runs the prompt input (opened,
 *   synchronize, ready_for_review; not from a fork): the requester's
 *   permission and the config (thread/admit.ts), and the thread: on an
 *   issue its comments and the open pull requests, on a pull request its
 *   comments, reviews and review comments, the pull request (when the
 *   payload has not got it) and its files;
 * - a workflow_dispatch with a prompt: the config (event-jobs.ts
 *   `runRepository`).
 * Both read the config on the default branch, at the input's path if set.
 */
export function startEarlyReads(
  env: Record<string, string | undefined>,
  payload: unknown,
): EarlyReads {
  const none = { urls: [], sent: Promise.resolve() };
  const token = workflowToken(env);
  if (!token) return none;
  // deps and review modes begin otherwise.
  if ((env.INPUT_MODE?.trim().toLowerCase() || "auto") !== "auto") return none;
  const event = payload as EventPayload | null;
  const repo = event?.repository;
  if (typeof repo?.full_name !== "string" || typeof repo.default_branch !== "string") return none;
  const api = (env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, "");
  const at = `${api}/repos/${repo.full_name}`;
  const configPath = env.INPUT_CONFIG_PATH?.trim() || DEFAULT_CONFIG_PATH;
  // As Octokit spells them (its URL templates, its parameters' order).
  const config = `${at}/contents/${encodeURIComponent(configPath)}?ref=${encodeURIComponent(repo.default_branch)}`;
  const phrase = env.INPUT_TRIGGER_PHRASE?.trim() || DEFAULT_TRIGGER_PHRASE;
  const prompted = Boolean(env.INPUT_PROMPT?.trim());
  const request = requestOf(env.GITHUB_EVENT_NAME, event as EventPayload, phrase, prompted);
  const urls = request
    ? threadReads(request, at, config)
    : env.GITHUB_EVENT_NAME === "workflow_dispatch" && prompted
      ? [config]
      : [];
  const headers = {
    accept: "application/vnd.github.v3+json",
    authorization: `token ${token}`,
    "user-agent": "patchwright-action",
  };
  const sent = Promise.all(urls.map((url) => readEarly(url, headers))).then(() => {});
  return { urls, sent };
}

/** The reads sent, and when they have all left (or failed to). */
export interface EarlyReads {
  urls: string[];
  sent: Promise<void>;
}

/** A request made in a thread: where, by whom, and whether it calls the bot. */
interface ThreadRequest {
  /** The words name the trigger phrase, or the label added is the default one. */
  calls: boolean;
  number: unknown;
  thread: { state?: unknown; locked?: unknown } | undefined;
  sender: EventPayload["sender"];
  /** On a pull request, and whether its payload lacks the pull request itself (issue_comment's). */
  pullRequest: "none" | "in-payload" | "read";
}

function requestOf(
  eventName: string | undefined,
  event: EventPayload,
  phrase: string,
  prompted: boolean,
): ThreadRequest | undefined {
  const { issue, pull_request: pull, sender } = event;
  const names = (body: unknown) =>
    typeof body === "string" && body.toLowerCase().includes(phrase.toLowerCase());
  if (eventName === "issue_comment" && event.action === "created") {
    const pullRequest = issue?.pull_request === undefined ? "none" : "read";
    const calls = names(event.comment?.body);
    return { calls, number: issue?.number, thread: issue, sender, pullRequest };
  }
  if (eventName === "issues" && issue?.pull_request === undefined) {
    // A label set in the config is not known yet: only the default one is read for.
    const label = event.label?.name;
    const calls =
      event.action === "opened"
        ? names(issue?.body)
        : event.action === "labeled" &&
          typeof label === "string" &&
          label.toLowerCase() === DEFAULT_LABEL;
    return { calls, number: issue?.number, thread: issue, sender, pullRequest: "none" };
  }
  if (eventName === "pull_request" && typeof event.action === "string") {
    // A fork's pull request is left alone (events.ts), and the prompt is the request.
    const head = pull?.head?.repo?.full_name;
    const calls =
      prompted &&
      (PULL_REQUEST_ACTIONS as readonly string[]).includes(event.action) &&
      typeof head === "string" &&
      head === pull?.base?.repo?.full_name;
    return { calls, number: pull?.number, thread: pull, sender, pullRequest: "in-payload" };
  }
  if (eventName === "pull_request_review_comment" && event.action === "created") {
    const calls = names(event.comment?.body);
    return { calls, number: pull?.number, thread: pull, sender, pullRequest: "in-payload" };
  }
  if (eventName === "pull_request_review" && event.action === "submitted") {
    const calls = names(event.review?.body);
    return { calls, number: pull?.number, thread: pull, sender, pullRequest: "in-payload" };
  }
  return undefined;
}

function threadReads(request: ThreadRequest, at: string, config: string): string[] {
  const { calls, number, thread, sender } = request;
  if (!calls || typeof number !== "number") return [];
  // The job declines a closed or locked thread before it reads anything more.
  if (thread?.state === "closed" || thread?.locked === true) return [];
  if (typeof sender?.login !== "string" || sender.type === "Bot") return [];
  const asked = [`${at}/collaborators/${encodeURIComponent(sender.login)}/permission`, config];
  if (request.pullRequest === "none") {
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
    ...(request.pullRequest === "read" ? [`${at}/pulls/${number}`] : []),
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
  pull_request?: {
    number?: unknown;
    state?: unknown;
    locked?: unknown;
    head?: { repo?: { full_name?: unknown } | null };
    base?: { repo?: { full_name?: unknown } };
  };
  comment?: { body?: unknown };
  review?: { body?: unknown };
  label?: { name?: unknown };
  sender?: { login?: unknown; type?: unknown };
  repository?: { full_name?: unknown; default_branch?: unknown };
}
