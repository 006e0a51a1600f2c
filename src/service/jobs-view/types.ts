/**
 * What the job pages (src/pages/) read and do, whichever queue holds the
 * jobs. service/jobs-view/ implements it over the queue's records and the
 * job event log; the pages know nothing else of the queue.
 *
 * Everything in here is already redacted: a view event is written through
 * the job's redactor before it is stored, so no page and no stream can show
 * a secret the job saw.
 */

export type JobState = "queued" | "running" | "done" | "failed";

/** One line of a job's live transcript, in the order it happened. */
export type ViewEvent = { at: number } & (
  | { type: "state"; state: JobState; by?: string | undefined; message?: string | undefined }
  | { type: "step"; text: string; note?: string | undefined }
  | { type: "warning"; text: string }
  | { type: "text"; turn: number; text: string }
  | { type: "tool_call"; turn: number; id: string; name: string; input: string }
  | {
      type: "tool_result";
      turn: number;
      id: string;
      name: string;
      isError: boolean;
      /** The end of the output (a diff for an edit), cut. */
      tail: string;
    }
  | { type: "denied"; turn: number; name: string; reason: string }
  | { type: "usage"; turn: number; costUsd: number; inputTokens: number; outputTokens: number }
  | { type: "checkpoint"; sha: string }
  | { type: "pushed"; branch: string }
  | { type: "report"; markdown: string; outcome: "success" | "failure" }
);

export interface JobSummary {
  id: string;
  /** The queue's kind: request, deps, base_moved. */
  kind: string;
  /** The thread kind for a request (agent, review, fix_ci, update_branch). */
  task?: string | undefined;
  repo: { owner: string; name: string };
  installationId?: number | undefined;
  requester?: string | undefined;
  /** The comment or event that asked. */
  triggerUrl?: string | undefined;
  state: JobState;
  /** 1 = next to run, among queued jobs of the same installation. */
  queuePosition?: number | undefined;
  createdAt: number;
  startedAt?: number | undefined;
  finishedAt?: number | undefined;
  turns?: number | undefined;
  tokens?: number | undefined;
  costUsd?: number | undefined;
  outcome?: { conclusion: string; message?: string | undefined } | undefined;
  links: {
    pullRequest?: string | undefined;
    /** The branch's page on GitHub (when the job's input says where the repository is). */
    branch?: string | undefined;
    comment?: string | undefined;
  };
  /** Who cancelled it, when it was. */
  cancelledBy?: string | undefined;
}

export interface JobFilter {
  installationId?: number | undefined;
  /** owner/name */
  repo?: string | undefined;
  state?: JobState | undefined;
  /** Only these repositories (owner/name, lower case): what the viewer may read. */
  repos?: ReadonlySet<string> | undefined;
  limit?: number | undefined;
}

export type CancelResult = "cancelled" | "stopping" | "finished" | "not_found";

export interface JobsView {
  list(filter?: JobFilter): Promise<JobSummary[]>;
  get(id: string): Promise<JobSummary | undefined>;
  /** The stored transcript from `from` on (an index); `next` is where to read on. */
  events(id: string, from?: number): Promise<{ events: ViewEvent[]; next: number }>;
  /**
   * Events as they are appended, from any worker; returns the unsubscribe.
   * With `from` (the `next` of `events`), the stored events from there come
   * first, then the live ones: each index once, in order, none lost between.
   */
  subscribe(
    id: string,
    listener: (event: ViewEvent, index: number) => void,
    from?: number,
  ): () => void;
  /** A queued job does not start; a running one stops at its next safe point and pushes what it has. */
  cancel(id: string, by: string): Promise<CancelResult>;
  /** A failed job queued again as a new attempt. */
  retry(id: string, by: string): Promise<"queued" | "not_failed" | "not_found">;
}
