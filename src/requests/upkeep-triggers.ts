import * as z from "../zod.js";
import { buildRequest, envelopeSchema, readPayload, requestBase, toRepo } from "./payload.js";
import type { JobRequest } from "./request.js";

/**
 * The events that start upkeep on pull requests rather than answer a
 * person: CI that failed on a pull request's head (`workflow_run` and
 * `check_suite`, which GitHub both sends for one Actions run), and a push
 * that moved a branch other pull requests are based on. Pure.
 */

/** The CI events' payloads: built when one comes (an issue's mention never reads them). */
const ciPayloads = z.onFirstUse(() => {
  const prRefSchema = z.object({
    number: z.number().check(z.int(), z.positive()),
    head: z.object({ ref: z.string(), sha: z.string() }),
    base: z.object({ ref: z.string() }),
  });
  const failedRunFields = {
    head_sha: z.string().check(z.minLength(1)),
    conclusion: z.nullish(z.string()),
    pull_requests: z._default(z.array(prRefSchema), []),
  };
  return {
    workflowRun: z.extend(envelopeSchema, {
      workflow_run: z.object({ id: z.number().check(z.int()), ...failedRunFields }),
    }),
    checkSuite: z.extend(envelopeSchema, {
      check_suite: z.object({ id: z.number().check(z.int()), ...failedRunFields }),
    }),
  };
});

/** Conclusions that mean the code (or the runner) failed, not that someone stopped it. */
const FAILED = new Set(["failure", "timed_out", "startup_failure"]);

/**
 * A failed run on a pull request's head, as a request to fix CI, or null.
 * Both events of one failure, and the re-run's, carry the same trigger key
 * (`ci:<head sha>`), so one commit's failure starts one job.
 */
export function parseCiFailure(
  event: "workflow_run" | "check_suite",
  payload: unknown,
  deliveryId: string,
): JobRequest | null {
  const data =
    event === "workflow_run"
      ? readPayload(ciPayloads().workflowRun, payload, event)
      : readPayload(ciPayloads().checkSuite, payload, event);
  const run = "workflow_run" in data ? data.workflow_run : data.check_suite;
  if (!FAILED.has(run.conclusion ?? "")) return null;
  // GitHub lists only same-repository pull requests here: forks are never tended.
  const pull = run.pull_requests.find((p) => p.head.sha === run.head_sha);
  if (!pull) return null;
  const base = requestBase(data, deliveryId);
  return buildRequest({
    ...base,
    trigger: event,
    target: { kind: "pull_request", number: pull.number, title: "" },
    pullRequest: {
      headRef: pull.head.ref,
      headSha: pull.head.sha,
      headRepoFullName: `${base.repo.owner}/${base.repo.name}`,
      baseRef: pull.base.ref,
      isFork: false,
    },
    instruction: "",
    source: { kind: "event", label: `ci:${run.head_sha}` },
    task: "fix_ci",
    ci: { headSha: run.head_sha },
  });
}

const pushPayload = z.onFirstUse(() =>
  z.extend(envelopeSchema, {
    ref: z.string(),
    after: z.string(),
    deleted: z._default(z.boolean(), false),
  }),
);

/** A branch moved: the pull requests based on it may now conflict. */
export interface BaseMoved {
  repo: JobRequest["repo"];
  installationId: number;
  /** The branch, without refs/heads/. */
  baseRef: string;
  /** The commit it moved to. */
  after: string;
  deliveryId: string;
  /** Who pushed (the bot's own pushes move only its own branches). */
  sender: string;
}

export const baseMovedSchema = z.object({
  repo: z.object({
    owner: z.string(),
    name: z.string(),
    cloneUrl: z.string(),
    defaultBranch: z.string(),
    htmlUrl: z.optional(z.string()),
    sizeKb: z.optional(z.number()),
  }),
  installationId: z.number().check(z.int()),
  baseRef: z.string().check(z.minLength(1)),
  after: z.string().check(z.minLength(1)),
  deliveryId: z.string().check(z.minLength(1)),
  sender: z.string(),
});

/** A push to a branch (not a tag, not a deletion) in an installed repository, or null. */
export function parseBaseMoved(payload: unknown, deliveryId: string): BaseMoved | null {
  const data = readPayload(pushPayload(), payload, "push");
  if (data.deleted || !data.ref.startsWith("refs/heads/") || !data.installation) return null;
  return {
    repo: toRepo(data.repository),
    installationId: data.installation.id,
    baseRef: data.ref.slice("refs/heads/".length),
    after: data.after,
    deliveryId,
    sender: data.sender.login,
  };
}
