import type { AgentEvent } from "../agent/events.js";
import type { Redactor } from "../agent/redact.js";
import type { JobRequest } from "../requests/request.js";
import { markInvisible } from "../secrets/invisible.js";
import { isAmbiguousFailure, isNotFound } from "./api-errors.js";
import { Checklist } from "./checklist.js";
import { details, fitBody, GITHUB_BODY_LIMIT } from "./markdown.js";
import type { GitHubClient, RepoRef } from "./octokit.js";
import { reactToTrigger } from "./reactions.js";

export interface Timer {
  cancel(): void;
}

export type SetTimer = (fn: () => void, ms: number) => Timer;

export interface StatusReporterDeps {
  octokit: GitHubClient;
  repo: RepoRef;
  /** The issue or pull request the job works for. */
  issueNumber: number;
  source: JobRequest["source"];
  clock: { now(): number };
  /** Injected so tests control time; defaults to an unref'd setTimeout. */
  setTimer?: SetTimer | undefined;
  /** Minimum time between two edits of the tracking comment. */
  throttleMs?: number | undefined;
  redact: Redactor;
  /** Link to the job's log (an Actions run, a dashboard), shown under the checklist. */
  jobUrl?: string | undefined;
  /** Called with API failures; the reporter itself never throws (a status is no reason to fail a job). */
  onError?: ((error: unknown, action: string) => void) | undefined;
  /**
   * The tracking comment an earlier run of this job made (a job resumed by
   * another process): it is edited instead of a new one being created.
   */
  existingComment?: TrackingComment | undefined;
  /**
   * A hidden line that names the job in every body the reporter writes
   * (`<!-- marker -->`). When GitHub's answer to creating the comment is
   * lost (a 502, a reset), the comment is looked up by it instead of being
   * posted twice, and a job run again after a crash finds it the same way.
   */
  marker?: string | undefined;
}

export interface StatusReporter {
  /** 👀 on the trigger. */
  acknowledge(): Promise<void>;
  /**
   * Creates the one tracking comment (a review-thread reply for review
   * comments). With a budget: its note under the headline, and the agent's
   * spend shown against its cap.
   */
  start(headline: string, budget?: CommentBudget): Promise<void>;
  /** Folds an agent event into the checklist; the comment is edited at most once per throttle window. */
  update(event: AgentEvent): void;
  /**
   * A job-level step (preparing the workspace, verifying, pushing); the
   * previous step is done. With a note: said under the running step of
   * the same text (a network failure seen while it runs).
   */
  step(text: string, note?: string): void;
  /** Replaces the comment with the final report and reacts 🚀 or 😕. Later updates are ignored. */
  finish(markdown: string, outcome: "success" | "failure"): Promise<void>;
  /**
   * A line under the headline while the job runs (the requests queued
   * behind it), edited in like any update; undefined removes it.
   */
  note(text: string | undefined): void;
  /**
   * The job stops here without a final word, to go on elsewhere (a deploy
   * hands it back to the queue): the comment says so at once, no reaction,
   * and later updates are ignored. A resumed job's reporter edits it again.
   */
  suspend(markdown: string): Promise<void>;
  /** A short standalone answer in the same place the tracking comment would go. */
  reply(markdown: string): Promise<void>;
  /** The tracking comment's address, once it exists. */
  commentUrl(): string | undefined;
  /** The tracking comment's id, once it exists: store it to resume the job elsewhere (existingComment). */
  commentId(): number | undefined;
  /** Resolves when every write made so far is done, reactions too (a pending throttled edit is not forced). */
  settled(): Promise<void>;
}

/** The job's cost cap, and what the request's budget phrase did to it (thread/budget.ts). */
export interface CommentBudget {
  usd: number;
  note?: string | undefined;
}

export interface TrackingComment {
  id: number;
  url: string;
}

export const DEFAULT_THROTTLE_MS = 3_000;

const defaultSetTimer: SetTimer = (fn, ms) => {
  const handle = setTimeout(fn, ms);
  // A pending trailing edit must not keep a finished process alive.
  handle.unref();
  return { cancel: () => clearTimeout(handle) };
};

export function createStatusReporter(deps: StatusReporterDeps): StatusReporter {
  const { octokit, clock, redact } = deps;
  const { owner, repo } = deps.repo;
  const setTimer = deps.setTimer ?? defaultSetTimer;
  const throttleMs = deps.throttleMs ?? DEFAULT_THROTTLE_MS;
  const onError = deps.onError ?? (() => {});
  // Review comments are answered in their thread; everything else on the conversation.
  const reviewCommentId = deps.source.kind === "review_comment" ? deps.source.id : undefined;

  const checklist = new Checklist();
  let headline = "";
  let budgetNote: string | undefined;
  let note: string | undefined;
  let comment: TrackingComment | undefined = deps.existingComment;
  let dirty = false;
  let finished = false;
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  let timer: Timer | undefined;
  // Every write goes through this chain, so two edits never race and the last one wins.
  let chain: Promise<void> = Promise.resolve();

  const enqueue = (action: string, work: () => Promise<void>): Promise<void> => {
    chain = chain.then(work).catch((error: unknown) => onError(error, action));
    return chain;
  };

  const hidden = deps.marker ? `\n\n${markerLine(deps.marker)}` : "";
  // The model's words and the text it quotes: no secret, and no character a
  // reader cannot see (it would carry what the thread's sanitizers took out).
  const prepare = (markdown: string) =>
    `${fitBody(markInvisible(redact(markdown)), GITHUB_BODY_LIMIT - hidden.length)}${hidden}`;

  const post = async (body: string, once: boolean): Promise<TrackingComment> => {
    // With a marker, a lost answer is settled by looking, not by posting again.
    const request = once ? { request: { retries: 0 } } : {};
    if (reviewCommentId !== undefined) {
      const { data } = await octokit.rest.pulls.createReplyForReviewComment({
        owner,
        repo,
        pull_number: deps.issueNumber,
        comment_id: reviewCommentId,
        body,
        ...request,
      });
      return { id: data.id, url: data.html_url };
    }
    const { data } = await octokit.rest.issues.createComment({
      owner,
      repo,
      issue_number: deps.issueNumber,
      body,
      ...request,
    });
    return { id: data.id, url: data.html_url };
  };

  const create = async (markdown: string): Promise<TrackingComment> => {
    const body = prepare(markdown);
    if (!deps.marker) return post(body, false);
    const since = new Date(clock.now() - 10 * 60_000);
    try {
      return await post(body, true);
    } catch (error) {
      if (!isAmbiguousFailure(error)) throw error;
      const found = await findMarkedComment(octokit, {
        ...deps.repo,
        issueNumber: deps.issueNumber,
        source: deps.source,
        marker: deps.marker,
        since,
      });
      if (found) {
        // It was created: it gets this body (it may hold an older one).
        await edit(found, markdown);
        return found;
      }
      return post(body, false);
    }
  };

  const edit = async (target: TrackingComment, markdown: string): Promise<void> => {
    const body = prepare(markdown);
    if (reviewCommentId !== undefined) {
      await octokit.rest.pulls.updateReviewComment({ owner, repo, comment_id: target.id, body });
    } else {
      await octokit.rest.issues.updateComment({ owner, repo, comment_id: target.id, body });
    }
  };

  const renderProgress = (): string => {
    const parts = [headline || "Working on it…"];
    if (budgetNote) parts.push(budgetNote);
    if (note) parts.push(note);
    if (!checklist.isEmpty()) parts.push(checklist.render());
    if (deps.jobUrl) parts.push(`<sub>[Job log](${deps.jobUrl})</sub>`);
    return parts.join("\n\n");
  };

  const renderFinal = (markdown: string): string => {
    const extras: string[] = [];
    if (!checklist.isEmpty()) extras.push(details("Steps", checklist.render()));
    if (deps.jobUrl) extras.push(`<sub>[Job log](${deps.jobUrl})</sub>`);
    const suffix = extras.length > 0 ? `\n\n${extras.join("\n\n")}` : "";
    // Cut the report, not the steps, when the whole would not fit.
    return `${fitBody(markdown, GITHUB_BODY_LIMIT - suffix.length - 100)}${suffix}`;
  };

  const editNow = (): void => {
    lastWriteAt = clock.now();
    void enqueue("update the tracking comment", async () => {
      if (finished || !dirty || !comment) return;
      dirty = false;
      await edit(comment, renderProgress());
    });
  };

  const schedule = (): void => {
    if (finished || !comment || timer) return;
    const wait = lastWriteAt + throttleMs - clock.now();
    if (wait <= 0) {
      editNow();
      return;
    }
    timer = setTimer(() => {
      timer = undefined;
      editNow();
    }, wait);
  };

  const markChanged = (): void => {
    dirty = true;
    schedule();
  };

  // Reactions go beside the comment's chain (no order between them matters); settled() waits for them too.
  const reacting = new Set<Promise<void>>();
  const react = (content: "eyes" | "rocket" | "confused"): Promise<void> => {
    const done = (async () => {
      try {
        await reactToTrigger(octokit, deps.repo, deps.issueNumber, deps.source, content);
      } catch (error) {
        onError(error, `add the ${content} reaction`);
      }
    })();
    reacting.add(done);
    void done.then(() => reacting.delete(done));
    return done;
  };

  return {
    acknowledge: () => react("eyes"),

    async start(text, budget) {
      headline = text;
      if (budget) {
        checklist.budget(budget.usd);
        budgetNote = budget.note;
      }
      if (finished) return;
      if (comment) {
        // Resumed: the comment is there and gets the new headline like any update.
        markChanged();
        return;
      }
      await enqueue("create the tracking comment", async () => {
        if (comment || finished) return;
        dirty = false;
        comment = await create(renderProgress());
        lastWriteAt = clock.now();
      });
      // Events that arrived while the comment was being created.
      if (dirty) schedule();
    },

    update(event) {
      if (finished) return;
      if (checklist.apply(event)) markChanged();
    },

    step(text, note) {
      if (finished) return;
      checklist.step(text, note);
      markChanged();
    },

    async finish(markdown, outcome) {
      if (finished) return;
      finished = true;
      timer?.cancel();
      timer = undefined;
      checklist.finish(outcome);
      const body = renderFinal(markdown);
      await enqueue("write the final report", async () => {
        if (comment) {
          try {
            await edit(comment, body);
            return;
          } catch (error) {
            // Deleted (404), or GitHub keeps failing the edit (the client has
            // retried): the final word still has to be said, in a new comment,
            // or the thread would end on "working".
            if (!isNotFound(error)) onError(error, "edit the tracking comment");
          }
        }
        comment = await create(body);
      });
      await react(outcome === "success" ? "rocket" : "confused");
    },

    note(text) {
      if (finished || note === text) return;
      note = text;
      markChanged();
    },

    async suspend(markdown) {
      if (finished) return;
      finished = true;
      timer?.cancel();
      timer = undefined;
      const body = [
        markdown,
        ...(checklist.isEmpty() ? [] : [details("Steps so far", checklist.render())]),
      ].join("\n\n");
      await enqueue("say the job was paused", async () => {
        if (comment) await edit(comment, body);
        else comment = await create(body);
      });
    },

    async reply(markdown) {
      await enqueue("reply", async () => {
        await create(markdown);
      });
    },

    commentUrl: () => comment?.url,

    commentId: () => comment?.id,

    settled: async () => {
      await chain;
      await Promise.all(reacting);
    },
  };
}

function markerLine(marker: string): string {
  return `<!-- ${marker.replace(/--/g, "-")} -->`;
}

/**
 * The comment a reporter with this marker wrote (or a job's earlier run
 * wrote), among those updated since `since`: a reply in the review thread
 * for review comments, else on the conversation.
 */
export async function findMarkedComment(
  octokit: GitHubClient,
  params: RepoRef & {
    issueNumber: number;
    source: JobRequest["source"];
    marker: string;
    since: Date;
  },
): Promise<TrackingComment | undefined> {
  const line = markerLine(params.marker);
  const since = params.since.toISOString();
  const comments =
    params.source.kind === "review_comment"
      ? await octokit.paginate(octokit.rest.pulls.listReviewCommentsForRepo, {
          owner: params.owner,
          repo: params.repo,
          since,
          per_page: 100,
        })
      : await octokit.paginate(octokit.rest.issues.listComments, {
          owner: params.owner,
          repo: params.repo,
          issue_number: params.issueNumber,
          since,
          per_page: 100,
        });
  const found = comments.find((c) => (c.body ?? "").includes(line));
  return found ? { id: found.id, url: found.html_url } : undefined;
}
