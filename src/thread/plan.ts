import type { ChangeInput, ChangeResult, UpdateStrategy } from "../change/change.js";
import type { ReviewScope } from "../github/pull-review.js";
import type { Attachment } from "../github/thread-render.js";
import type { PullRequestLink } from "../report/final-report.js";
import type { FollowedPlan } from "./kinds/plan-report.js";
import type { ReviewCommentTool } from "./kinds/review-tool.js";
import type { PullRequestOrigin } from "./origin.js";

/**
 * A job, planned: data that one executor runs (execute-plan.ts). Every
 * kind of request (an issue's request, a PR's, a review, a CI fix, a
 * branch update, a workflow's prompt) is a plan: the change to make, the
 * steps that make it, and how its result is published.
 */
export interface ThreadPlan {
  /** The change (instruction, attachments, overrides already in its task and settings). */
  input: ChangeInput;
  /** Which steps make the change. */
  work: Work;
  /** Where the result goes once the work is on its branch. */
  publish: Publish;
  /** Lines around the final report (a CI fix's attempt number and its marker). */
  frame?: { before?: string; after?: string } | undefined;
  /** The plan this change carries out: the pull request and the report link it and say where the result differs. */
  followsPlan?: FollowedPlan | undefined;
}

export type Work =
  /** The agent's change: prepare, resume, setup, agent, commit, verify, push. */
  | { kind: "agent" }
  /** The base brought in, conflicts resolved by the agent, verify, push. */
  | { kind: "update_branch"; strategy: UpdateStrategy }
  /**
   * Another bot's dependency pull request: its bump read from the branch
   * and what changed upstream given to the agent, then a package it cannot
   * make work put back (deps/pr/steps.ts).
   */
  | { kind: "dependency_pr"; bot: string };

export type Publish =
  /** A pull request opened for the branch, or the one already open for it updated. */
  | {
      kind: "pull_request";
      repo: { owner: string; repo: string };
      /** Redacted and cleaned of invisible characters when published. */
      title: string;
      origin: PullRequestOrigin;
      /** The bot's pull request still open for the issue: new commits go there, its description stays. */
      existing?: PullRequestLink | undefined;
      headRef?: string | undefined;
    }
  /** The commits went onto the pull request's own branch: nothing more to open. */
  | { kind: "branch" }
  /** A fork's pull request: nothing pushed, the change answered as a patch. */
  | { kind: "patch" }
  /** One pull request review from the agent's comments; nothing pushed. */
  | {
      kind: "review";
      repo: { owner: string; repo: string };
      pull: { number: number; headSha: string };
      scope: ReviewScope;
      /** The review's add_review_comment tool, in the change's tools: it holds the comments. */
      tool: ReviewCommentTool;
    }
  /** A branch brought up to date: said so when nothing was needed or a conflict was left. */
  | { kind: "branch_update"; baseRef: string }
  /** A read-only run that makes a plan: nothing pushed; its answer is read by kinds/plan-task.ts. */
  | { kind: "plan" };

/** How a kind shapes the request's plan (kinds/upkeep-plans.ts): its own words, files, settings. */
export interface PlanKind {
  /** The job's own instruction instead of the request's words. */
  instruction?: string | undefined;
  attachments?: Attachment[] | undefined;
  input?: Partial<ChangeInput> | undefined;
}

/** A plan that ended before any work: the answer is all there is. */
export interface DonePlan {
  /** `plan`: the answer is a plan that waits for a go (the App watches it for a 👍). */
  done: { markdown: string; outcome: "success" | "failure"; plan?: boolean | undefined };
  /** The work done before the answer (a plan's read-only run), for the caller's summary. */
  job?: ChangeResult | undefined;
}

/** How a job ended, for the caller (the queue's record, the Action's summary). */
export interface ThreadOutcome {
  job?: ChangeResult;
  pullRequest?: { number: number; url: string; created: boolean };
  /** "interrupted": stopped by a shutdown with checkpoints on; nothing was reported, it resumes. */
  conclusion: "success" | "failure" | "no_changes" | "interrupted";
  /**
   * Set (with a "failure") when GitHub or git failed in a way that may pass
   * and attempts are left (RunJobOptions.retry): what failed. Nothing final
   * was reported; the comment says when the next attempt comes.
   */
  retry?: string | undefined;
  /** A plan was posted and waits for a go: the comment that holds it (the tracking comment). */
  planPosted?: { id: number; url: string } | undefined;
}
