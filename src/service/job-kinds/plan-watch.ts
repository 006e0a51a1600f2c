import { isNotFound, isTransientApiError } from "../../github/api-errors.js";
import type { GitHubClient } from "../../github/octokit.js";
import { createWriterCheck } from "../../github/permissions.js";
import type { JobResult } from "../../queue/types.js";
import type { PlanWatch } from "../../requests/plan-watch.js";
import { type JobRequest, jobKey, triggerKey } from "../../requests/request.js";
import { readPlanMarker } from "../../thread/kinds/plan-output.js";
import { isOwnRequest } from "../../thread/start-rules.js";
import type { WorkerServices } from "../worker-services.js";
import type { KindJob } from "./inputs.js";
import type { JobKindDefinition } from "./kind.js";

/**
 * A posted plan, waiting for its 👍. GitHub sends no webhook for
 * reactions, so this job looks: one API call (the plan comment, whose
 * reaction counts come with it) each time, the reactions themselves only
 * when it has a 👍. A 👍 from a person with write access (never a bot's,
 * never the App's own) queues the go as a request job on the plan's
 * thread, keyed by the plan comment (its trigger id), so that plan has at
 * most one go from 👍s; `@agent go` and a 👍 meet in the go itself, which
 * takes a plan once (thread/kinds/go.ts). Between looks the job waits in
 * the queue (`later`: durable, a restart keeps it, no attempt counted):
 * 15 s at first, then a tenth of the plan's age, at most 15 minutes, for
 * 24 hours (about 170 looks in all). It ends at once when the plan went ahead, or is gone.
 */
export const planWatchKind: JobKindDefinition<"plan_watch"> = {
  kind: "plan_watch",
  run: runPlanWatch,
};

/** How long a plan waits for a 👍. */
export const PLAN_WAIT_MS = 24 * 3_600_000;
/** A 👍 soon after the plan is seen within seconds: people answer a plan they just read. */
const FIRST_LOOK_MS = 15_000;
const LONGEST_WAIT_MS = 15 * 60_000;

/** The wait before the next look at a plan this old: often at first, then less and less. */
export function nextLookMs(ageMs: number): number {
  return Math.min(LONGEST_WAIT_MS, Math.max(FIRST_LOOK_MS, Math.round(ageMs / 10)));
}

/** The watch job of a plan just posted: its first look comes after a minute. */
export function planWatchJob(watch: PlanWatch) {
  const thread = jobKey(watch);
  return {
    kind: "plan_watch" as const,
    // Its own key: a watch waiting in the queue never holds up the thread's jobs.
    key: `${thread}:plan:${watch.plan.id}`,
    deliveryId: `plan-watch:${thread}:${watch.plan.id}`,
    triggerId: `${thread}:plan-watch:${watch.plan.id}`,
    installationId: watch.installationId,
    input: watch,
  };
}

type Look =
  | { kind: "over"; why: string }
  | { kind: "wait" }
  | { kind: "go"; who: { login: string; id: number }; at: string; reaction: number };

async function runPlanWatch(
  job: KindJob<"plan_watch">,
  services: WorkerServices,
): Promise<JobResult> {
  const watch = job.record.inputs.at(-1);
  if (!watch || !services.submit) {
    return { status: "failed", message: "the job record holds no plan this version can read" };
  }
  const now = services.clock.now();
  if (now >= watch.until) return over("no 👍 within the wait");
  const octokit = services.github.installation(watch.installationId);
  let look: Look;
  try {
    look = await lookForGo(octokit, watch, await services.botLogin());
  } catch (error) {
    if (isNotFound(error)) return over("the plan comment is gone");
    // GitHub having a bad minute is no reason to stop watching: look again later.
    if (!isTransientApiError(error)) throw error;
    services.log.warn({ err: error, job: job.record.id }, "could not look at the plan's reactions");
    look = { kind: "wait" };
  }
  if (look.kind === "over") return over(look.why);
  if (look.kind === "wait") {
    const delayMs = Math.min(nextLookMs(now - watch.since), watch.until - now);
    return { status: "later", delayMs, message: "no 👍 from a writer yet" };
  }
  const request = await goRequest(octokit, watch, look);
  const submitted = await services.submit({
    kind: "request",
    key: jobKey(request),
    deliveryId: request.deliveryId,
    // One per plan comment: a second 👍 (or a second look) is refused as a duplicate.
    triggerId: triggerKey(request),
    installationId: watch.installationId,
    input: request,
  });
  services.log.info(
    { job: job.record.id, plan: watch.plan.url, by: look.who.login, submitted: submitted.status },
    "a 👍 on a plan: go",
  );
  return { status: "done", conclusion: "go", message: `👍 from @${look.who.login}` };
}

function over(why: string): JobResult {
  return { status: "done", conclusion: "no_changes", message: why };
}

/** One look: the comment (and its reaction counts); the 👍s and their people only when there is one. */
async function lookForGo(octokit: GitHubClient, watch: PlanWatch, botLogin: string): Promise<Look> {
  const repo = { owner: watch.repo.owner, repo: watch.repo.name };
  const { data: comment } = await octokit.rest.issues.getComment({
    ...repo,
    comment_id: watch.plan.id,
  });
  const marker = readPlanMarker(comment.body ?? "");
  if (!marker) return { kind: "over", why: "the comment holds no plan any more" };
  if (marker.went) return { kind: "over", why: `@${marker.went.by} already said go` };
  if ((comment.reactions?.["+1"] ?? 0) === 0) return { kind: "wait" };
  const reactions = await octokit.paginate(octokit.rest.reactions.listForIssueComment, {
    ...repo,
    comment_id: watch.plan.id,
    content: "+1",
    per_page: 100,
  });
  const isWriter = createWriterCheck(octokit, repo);
  const oldestFirst = [...reactions].sort((a, b) => a.id - b.id);
  for (const reaction of oldestFirst) {
    const user = reaction.user;
    if (!user) continue;
    const person = { login: user.login, type: user.type === "Bot" ? "Bot" : "User" } as const;
    // A bot's 👍 (the App's own above all) is no one's go.
    if (person.type === "Bot" || isOwnRequest({ requester: { ...person, id: user.id } }, botLogin))
      continue;
    if (await isWriter(user.login)) {
      return {
        kind: "go",
        who: { login: user.login, id: user.id },
        at: reaction.created_at,
        reaction: reaction.id,
      };
    }
  }
  return { kind: "wait" };
}

/**
 * The go a 👍 stands for: a request on the plan's thread from the person
 * who gave it, naming the plan comment as its source (its 👀 and 🚀 go
 * there) and the go as its task. The thread is read again, so a closed or
 * locked one is refused as for any request (thread/admit.ts).
 */
async function goRequest(
  octokit: GitHubClient,
  watch: PlanWatch,
  look: Extract<Look, { kind: "go" }>,
): Promise<JobRequest> {
  const { data: issue } = await octokit.rest.issues.get({
    owner: watch.repo.owner,
    repo: watch.repo.name,
    issue_number: watch.target.number,
  });
  // The pull request's head is fetched again when the job starts.
  const {
    plan: _plan,
    triggerPhrase: _phrase,
    since: _since,
    until: _until,
    pullRequest: _stale,
    ...request
  } = watch;
  return {
    ...request,
    trigger: "issue_comment",
    deliveryId: `plan-go:${watch.plan.id}:${look.reaction}`,
    installationId: watch.installationId,
    target: {
      ...watch.target,
      title: issue.title,
      body: issue.body ?? watch.target.body,
      state: issue.state === "closed" ? "closed" : "open",
      locked: issue.locked === true,
    },
    instruction: `${watch.triggerPhrase} go`,
    source: {
      kind: "issue_comment",
      id: watch.plan.id,
      htmlUrl: watch.plan.url,
      createdAt: look.at,
    },
    requester: { login: look.who.login, id: look.who.id, type: "User" },
    task: "go",
  };
}
