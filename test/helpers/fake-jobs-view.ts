import { createRedactor, type Redactor, redactValue } from "../../src/agent/redact.js";
import type {
  CancelResult,
  JobFilter,
  JobSummary,
  JobsView,
  ViewEvent,
} from "../../src/service/jobs-view/types.js";

/**
 * An in-memory JobsView that behaves like the real one for the pages:
 * events appended later reach subscribers (with their index), every event
 * passes through the redactor before it is stored (as the real event log
 * does), the summary follows the events (state, turns, tokens, cost,
 * outcome), and cancel and retry change the state.
 */

type Listener = (event: ViewEvent, index: number) => void;

interface Entry {
  summary: JobSummary;
  events: ViewEvent[];
  listeners: Set<Listener>;
}

export interface FakeJobsView extends JobsView {
  add(job: Partial<JobSummary> & Pick<JobSummary, "id" | "repo">): JobSummary;
  /** Appends (redacted) and tells the subscribers; returns the stored event. */
  append(id: string, event: ViewEvent): ViewEvent;
  /** How many listeners a job has (a page's stream is open when this is above 0). */
  subscribers(id: string): number;
  cancelled: Array<{ id: string; by: string }>;
  retried: Array<{ id: string; by: string }>;
}

export function createFakeJobsView(
  options: { redactor?: Redactor; clock?: { now(): number } } = {},
): FakeJobsView {
  const redact = options.redactor ?? createRedactor();
  const clock = options.clock ?? Date;
  const jobs = new Map<string, Entry>();
  const cancelled: FakeJobsView["cancelled"] = [];
  const retried: FakeJobsView["retried"] = [];

  const entry = (id: string) => {
    const found = jobs.get(id);
    if (!found) throw new Error(`no job ${id}`);
    return found;
  };

  const follow = (summary: JobSummary, event: ViewEvent) => {
    if (event.type === "state") {
      summary.state = event.state;
      if (event.state === "running") summary.startedAt ??= event.at;
      if (event.state === "done" || event.state === "failed") summary.finishedAt = event.at;
    }
    if (event.type === "usage") {
      summary.turns = Math.max(summary.turns ?? 0, event.turn);
      summary.tokens = (summary.tokens ?? 0) + event.inputTokens + event.outputTokens;
      summary.costUsd = (summary.costUsd ?? 0) + event.costUsd;
    }
    if (event.type === "report") summary.outcome = { conclusion: event.outcome };
  };

  const append = (id: string, event: ViewEvent): ViewEvent => {
    const job = entry(id);
    const stored = redactValue(event, redact) as ViewEvent;
    job.events.push(stored);
    follow(job.summary, stored);
    const index = job.events.length - 1;
    for (const listener of [...job.listeners]) listener(stored, index);
    return stored;
  };

  const view: FakeJobsView = {
    cancelled,
    retried,
    add(job) {
      const summary: JobSummary = {
        kind: "request",
        state: "queued",
        createdAt: clock.now(),
        links: {},
        ...job,
      };
      jobs.set(job.id, { summary, events: [], listeners: new Set() });
      return summary;
    },
    append,
    subscribers: (id) => jobs.get(id)?.listeners.size ?? 0,
    async list(filter: JobFilter = {}) {
      return [...jobs.values()]
        .map((job) => ({ ...job.summary }))
        .filter(
          (job) =>
            filter.installationId === undefined || job.installationId === filter.installationId,
        )
        .filter(
          (job) =>
            !filter.repo ||
            `${job.repo.owner}/${job.repo.name}`.toLowerCase() === filter.repo.toLowerCase(),
        )
        .filter((job) => !filter.state || job.state === filter.state)
        .filter(
          (job) =>
            !filter.repos || filter.repos.has(`${job.repo.owner}/${job.repo.name}`.toLowerCase()),
        )
        .sort((a, b) => b.createdAt - a.createdAt)
        .slice(0, filter.limit ?? Number.POSITIVE_INFINITY);
    },
    async get(id) {
      const job = jobs.get(id);
      return job ? { ...job.summary } : undefined;
    },
    async events(id, from = 0) {
      const job = jobs.get(id);
      const events = job ? job.events.slice(from) : [];
      return { events, next: from + events.length };
    },
    subscribe(id, listener) {
      const job = entry(id);
      job.listeners.add(listener);
      return () => job.listeners.delete(listener);
    },
    async cancel(id, by): Promise<CancelResult> {
      const job = jobs.get(id);
      if (!job) return "not_found";
      const { state } = job.summary;
      if (state === "done" || state === "failed") return "finished";
      cancelled.push({ id, by });
      job.summary.cancelledBy = by;
      // A queued job never starts; a running one stops at its next safe point (here: at once).
      append(id, { at: clock.now(), type: "state", state: "failed", by, message: "cancelled" });
      return state === "queued" ? "cancelled" : "stopping";
    },
    async retry(id, by) {
      const job = jobs.get(id);
      if (!job) return "not_found";
      if (job.summary.state !== "failed") return "not_failed";
      retried.push({ id, by });
      view.add({
        ...job.summary,
        id: `${id}-retry${retried.length}`,
        state: "queued",
        createdAt: clock.now(),
        startedAt: undefined,
        finishedAt: undefined,
        cancelledBy: undefined,
        outcome: undefined,
      });
      return "queued";
    },
  };
  return view;
}
