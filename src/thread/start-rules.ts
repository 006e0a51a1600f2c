import { bareLogin } from "../github/logins.js";
import type { JobRequest } from "../requests/request.js";
import { containsPhrase } from "./phrase.js";

/**
 * Whether a parsed request is for the bot at all, and whether its thread
 * can take a job. Shared by every entry point (App, Action); the permission
 * check through the API comes after (see admit.ts).
 */

export interface StartRules {
  /** e.g. "@agent"; matched as a word, case-insensitively, outside code and quotes. */
  triggerPhrase: string;
  /** The label that starts a job when added to an issue. */
  label: string;
  /** Bot logins allowed to start jobs; "name" and "name[bot]" both match the App "name[bot]". */
  allowedBots: readonly string[];
  /** The App's own login, e.g. "patchwright[bot]". */
  botLogin: string;
}

export type StartRefusal = "no_phrase" | "own_comment" | "bot" | "wrong_label";
export type StartDecision = { start: true } | { start: false; reason: StartRefusal };

/** Written by the bot itself (its tracking comments and replies come back as webhooks). */
export function isOwnRequest(request: Pick<JobRequest, "requester">, botLogin: string): boolean {
  const { requester } = request;
  return (
    requester.login.toLowerCase() === botLogin.toLowerCase() ||
    (requester.type === "Bot" && bareLogin(requester.login) === bareLogin(botLogin))
  );
}

/**
 * CI that failed or a base that moved, on a pull request: no person asked,
 * so there is no phrase, sender or permission to check. The job itself
 * tends only the bot's own pull requests (see upkeep-task.ts).
 */
export function isUpkeepEvent(request: Pick<JobRequest, "source" | "task">): boolean {
  return request.source.kind === "event" && request.task !== undefined && request.task !== "agent";
}

/** Whether a parsed request should start a job; the permission gate comes after. */
export function shouldStart(request: JobRequest, rules: StartRules): StartDecision {
  if (isUpkeepEvent(request)) return { start: true };
  const { requester } = request;
  const isBot = requester.type === "Bot";
  if (isOwnRequest(request, rules.botLogin)) return { start: false, reason: "own_comment" };

  if (
    isBot &&
    !rules.allowedBots.some((allowed) => bareLogin(allowed) === bareLogin(requester.login))
  ) {
    return { start: false, reason: "bot" };
  }

  // The workflow's author chose the event and wrote the prompt: there are no words to look for.
  if (request.source.kind === "event") return { start: true };

  if (request.source.kind === "label") {
    // GitHub treats label names case-insensitively.
    const added = request.source.label?.toLowerCase();
    return added !== undefined && added === rules.label.toLowerCase()
      ? { start: true }
      : { start: false, reason: "wrong_label" };
  }

  return containsPhrase(request.instruction, rules.triggerPhrase)
    ? { start: true }
    : { start: false, reason: "no_phrase" };
}

/**
 * Why the target cannot take a job, or null. Locked wins over closed: a
 * locked thread cannot be reopened by the requester to try again.
 */
export function closedOrLocked(request: Pick<JobRequest, "target">): "closed" | "locked" | null {
  if (request.target.locked) return "locked";
  if (request.target.state === "closed") return "closed";
  return null;
}
