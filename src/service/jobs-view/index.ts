import type { JobEventLog } from "../../queue/event-log.js";
import type { JobQueue, ListFilter, StoredJobRecord } from "../../queue/types.js";
import type { JobFilter, JobSummary, JobsView, ViewEvent } from "./types.js";

/**
 * The job pages' view of the queue, whichever back end holds it: records
 * read as summaries (who asked, where, the links, the stats the job kept on
 * its record, so a list reads no log), the queue position among the queued
 * jobs of the same installation, the stored transcript and its live feed
 * from the job's event log, and the controls.
 */
export function createJobsView(options: {
  // Any kinds: a summary reads the inputs it knows (a request's, a deps run's, a moved branch's).
  queue: Pick<JobQueue, "list" | "queuedIds" | "get" | "cancel" | "retry" | "log">;
  /** Default: the queue's own log. */
  eventLog?: JobEventLog | undefined;
}): JobsView {
  const { queue } = options;
  const log = options.eventLog ?? queue.log;

  /** Each queued job's place in line in its installation, oldest first (as workers pick them). */
  async function positions(installations: Set<number | undefined>): Promise<Map<string, number>> {
    const place = new Map<string, number>();
    for (const installation of installations) {
      const ids = await queue.queuedIds(installation);
      for (const [n, id] of ids.entries()) place.set(id, n + 1);
    }
    return place;
  }

  return {
    async list(filter: JobFilter = {}) {
      const records = await queue.list(toListFilter(filter));
      const queued = new Set(
        records.filter((r) => r.state === "queued").map((r) => r.installationId),
      );
      const place = queued.size > 0 ? await positions(queued) : undefined;
      return records.map((record) => summaryOf(record, place?.get(record.id)));
    },
    async get(id) {
      const record = await queue.get(id);
      if (!record) return undefined;
      const place =
        record.state === "queued"
          ? (await positions(new Set([record.installationId]))).get(id)
          : undefined;
      return summaryOf(record, place);
    },
    async events(id, from = 0) {
      const { entries, next } = await log.read(id, from);
      return { events: entries.map((e) => e.entry as ViewEvent), next };
    },
    subscribe(id, listener, from) {
      return log.subscribe(id, (entry, index) => listener(entry as ViewEvent, index), from);
    },
    cancel: (id, by) => queue.cancel(id, by),
    retry: (id, by) => queue.retry(id, by),
  };
}

function toListFilter(filter: JobFilter): ListFilter {
  const repo = filter.repo?.toLowerCase();
  const { repos } = filter;
  return {
    installationId: filter.installationId,
    state: filter.state,
    limit: filter.limit,
    ...(repo || repos
      ? {
          where: (record: StoredJobRecord) => {
            const where = repoOf(record);
            if (!where) return false;
            const name = `${where.owner}/${where.name}`.toLowerCase();
            return (!repo || name === repo) && (!repos || repos.has(name));
          },
        }
      : {}),
  };
}

/** What a summary reads of a job's input: the fields the service's kinds have, read defensively. */
interface InputFields {
  repo?: { owner?: unknown; name?: unknown; htmlUrl?: unknown } | string;
  owner?: unknown;
  requester?: { login?: unknown };
  source?: { htmlUrl?: unknown };
  target?: { htmlUrl?: unknown };
  task?: unknown;
  installationId?: unknown;
}

function lastInput(record: StoredJobRecord): InputFields {
  const input = record.inputs.at(-1);
  return input && typeof input === "object" ? (input as InputFields) : {};
}

/** The repository a job works on: a request's or a moved branch's `repo`, a deps run's `owner`/`repo`. */
export function repoOf(
  record: StoredJobRecord,
): { owner: string; name: string; htmlUrl?: string } | undefined {
  const input = lastInput(record);
  const { repo } = input;
  if (
    repo &&
    typeof repo === "object" &&
    typeof repo.owner === "string" &&
    typeof repo.name === "string"
  )
    return {
      owner: repo.owner,
      name: repo.name,
      ...(typeof repo.htmlUrl === "string" ? { htmlUrl: repo.htmlUrl } : {}),
    };
  if (typeof repo === "string" && typeof input.owner === "string")
    return { owner: input.owner, name: repo };
  return undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

export function summaryOf(record: StoredJobRecord, queuePosition?: number): JobSummary {
  const input = lastInput(record);
  const repo = repoOf(record);
  const installationId =
    record.installationId ??
    (typeof input.installationId === "number" ? input.installationId : undefined);
  const { outcome, stats } = record;
  return {
    id: record.id,
    kind: record.kind,
    // An upkeep event names its task; a comment's comes from its words, read when it runs.
    task: text(input.task),
    repo: { owner: repo?.owner ?? "", name: repo?.name ?? "" },
    installationId,
    requester: text(input.requester?.login),
    triggerUrl: text(input.source?.htmlUrl) ?? text(input.target?.htmlUrl),
    state: record.state,
    queuePosition: record.state === "queued" ? queuePosition : undefined,
    createdAt: record.createdAt,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    turns: stats?.turns,
    tokens: stats?.tokens,
    costUsd: stats?.costUsd,
    outcome: outcome ? { conclusion: outcome.conclusion, message: outcome.message } : undefined,
    links: {
      pullRequest: outcome?.pullRequest?.url,
      branch:
        record.branch && repo?.htmlUrl
          ? `${repo.htmlUrl}/tree/${record.branch.split("/").map(encodeURIComponent).join("/")}`
          : undefined,
      comment: record.trackingComment?.url,
    },
    cancelledBy: outcome?.conclusion === "cancelled" ? outcome.by : undefined,
  };
}
