import {
  buildRequest,
  envelopeSchema,
  pullRequestOf,
  pullRequestSchema,
  readPayload,
  repositorySchema,
  requestBase,
  targetOf,
  toPerson,
  toRepo,
  userSchema,
} from "../requests/payload.js";
import type { JobRequest, Person } from "../requests/request.js";
import { parseTrigger } from "../requests/triggers.js";
import { parseCiFailure } from "../requests/upkeep-triggers.js";
import type { RepositoryJobRequest } from "../thread/run-repository-job.js";
import * as z from "../zod.js";
import { PULL_REQUEST_ACTIONS } from "./early-event.js";
import { ActionFailure } from "./failure.js";

/**
 * Actions event -> what to run. Comment, review, new issue and label events
 * are the App's triggers, parsed the same way; `pull_request` runs the prompt input
 * on the PR's own branch; `workflow_dispatch` and `schedule` run it on the
 * default branch and open a pull request. Pure: the payload is already read.
 */

export type ActionEvent =
  | { kind: "request"; request: JobRequest }
  | { kind: "repository"; request: RepositoryJobRequest }
  /** Nothing to do for this event (an edited comment, a closed PR); the reason is logged. */
  | { kind: "skip"; reason: string };

/** The workflow runs the Action on an event it cannot serve; the message says what to change. */
export class ActionEventError extends ActionFailure {
  override name = "ActionEventError";
}

export const COMMENT_EVENTS = [
  "issue_comment",
  "pull_request_review_comment",
  "pull_request_review",
  "issues",
] as const;
const SUPPORTED = [
  ...COMMENT_EVENTS,
  "pull_request",
  "workflow_run",
  "workflow_dispatch",
  "schedule",
];

export interface EventInput {
  eventName: string;
  payload: unknown;
  /** The run id (and attempt): a re-run is the same request. */
  deliveryId: string;
  /** The `prompt` input, for pull_request, workflow_dispatch and schedule events. */
  prompt?: string | undefined;
  /** Who started the run (GITHUB_ACTOR), for payloads without a sender (schedule). */
  actor?: Person | undefined;
  runUrl?: string | undefined;
  /** The `mode` input: "review" makes a pull_request event a review. */
  mode?: string | undefined;
}

const pullRequestPayload = z.extend(envelopeSchema, {
  action: z.string(),
  pull_request: pullRequestSchema,
});

const repositoryPayload = z.object({
  repository: repositorySchema,
  sender: z.optional(userSchema),
});

/**
 * Why a pull_request event from a fork is left alone, or null when it is not
 * one. Checked before anything else: such runs get a read-only token and no
 * secrets, and their code is not the repository's to trust.
 */
export function forkPullRequestNote(eventName: string, payload: unknown): string | null {
  if (eventName !== "pull_request") return null;
  const parsed = pullRequestPayload.safeParse(payload);
  if (!parsed.success) return null;
  const pr = pullRequestOf(parsed.data.pull_request);
  if (!pr.isFork) return null;
  return [
    `Pull request #${parsed.data.pull_request.number} comes from ${pr.headRepoFullName}, a fork.`,
    "patchwright does not run prompts on pull requests from forks: the workflow gets a read-only token and no secrets,",
    "and the fork's code must not run with the repository's credentials. Nothing was changed or pushed.",
    "A maintainer can comment with the trigger phrase on the pull request to get the change as a patch instead.",
  ].join(" ");
}

function requirePrompt(eventName: string, prompt: string | undefined): string {
  if (!prompt?.trim()) {
    throw new ActionEventError(
      `input prompt: required for ${eventName} events (the instruction the agent carries out)`,
    );
  }
  return prompt;
}

export function parseActionEvent(input: EventInput): ActionEvent {
  const { eventName, payload, deliveryId } = input;
  if (!SUPPORTED.includes(eventName)) {
    throw new ActionEventError(
      `patchwright does not run on ${eventName} events; trigger the workflow on ${SUPPORTED.join(", ")}`,
    );
  }

  if ((COMMENT_EVENTS as readonly string[]).includes(eventName)) {
    const request = parseTrigger(eventName, payload, deliveryId);
    if (request) return { kind: "request", request };
    const action = (payload as { action?: unknown } | null)?.action;
    return {
      kind: "skip",
      reason: `${eventName} events with action "${String(action)}" start no job`,
    };
  }

  if (eventName === "workflow_run") {
    const action = (payload as { action?: unknown } | null)?.action;
    const request = action === "completed" ? parseCiFailure(eventName, payload, deliveryId) : null;
    if (request) return { kind: "request", request };
    return {
      kind: "skip",
      reason: "the workflow run did not fail on the head of a pull request in this repository",
    };
  }

  if (eventName === "pull_request") {
    const data = readPayload(pullRequestPayload, payload, eventName);
    if (!(PULL_REQUEST_ACTIONS as readonly string[]).includes(data.action)) {
      return {
        kind: "skip",
        reason: `pull_request events with action "${data.action}" start no job (only ${PULL_REQUEST_ACTIONS.join(", ")})`,
      };
    }
    const review = input.mode === "review";
    const request = buildRequest({
      ...requestBase(data, deliveryId),
      trigger: "pull_request",
      target: targetOf(data.pull_request, "pull_request"),
      pullRequest: pullRequestOf(data.pull_request),
      instruction: review ? "" : requirePrompt(eventName, input.prompt),
      source: {
        kind: "event",
        ...(data.pull_request.html_url ? { htmlUrl: data.pull_request.html_url } : {}),
      },
      ...(review ? { task: "review" } : {}),
    });
    return { kind: "request", request };
  }

  const trigger = eventName === "schedule" ? "schedule" : "workflow_dispatch";
  const data = readPayload(repositoryPayload, payload, eventName);
  return {
    kind: "repository",
    request: {
      trigger,
      deliveryId,
      repo: toRepo(data.repository),
      requester: data.sender ? toPerson(data.sender) : input.actor,
      instruction: requirePrompt(eventName, input.prompt),
      runUrl: input.runUrl,
    },
  };
}
