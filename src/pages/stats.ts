import type { JobSummary } from "../service/jobs-view/types.js";

/**
 * What the jobs add up to over a window: how many, how many of the finished
 * ones succeeded (done, and not cancelled), the median run time, tokens and
 * cost; plus one bucket per day for the charts.
 */

export interface WindowStats {
  jobs: number;
  finished: number;
  succeeded: number;
  /** 0..1 of the finished jobs; undefined with none finished. */
  successRate: number | undefined;
  medianRunMs: number | undefined;
  tokens: number;
  costUsd: number;
}

export interface DayBucket {
  /** Midnight UTC of the day. */
  day: number;
  jobs: number;
  succeeded: number;
  costUsd: number;
}

export interface RepoStats {
  repo: string;
  week: WindowStats;
  month: WindowStats;
}

export interface Stats {
  total: { week: WindowStats; month: WindowStats };
  repos: RepoStats[];
  /** The last 30 days, oldest first. */
  days: DayBucket[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

function succeeded(job: JobSummary): boolean {
  return job.state === "done" && !job.cancelledBy;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function windowStats(jobs: JobSummary[]): WindowStats {
  const finished = jobs.filter((job) => job.state === "done" || job.state === "failed");
  const good = finished.filter(succeeded).length;
  const runs = finished
    .filter((job) => job.startedAt !== undefined && job.finishedAt !== undefined)
    .map((job) => (job.finishedAt ?? 0) - (job.startedAt ?? 0));
  return {
    jobs: jobs.length,
    finished: finished.length,
    succeeded: good,
    successRate: finished.length ? good / finished.length : undefined,
    medianRunMs: median(runs),
    tokens: jobs.reduce((sum, job) => sum + (job.tokens ?? 0), 0),
    costUsd: jobs.reduce((sum, job) => sum + (job.costUsd ?? 0), 0),
  };
}

export function computeStats(jobs: JobSummary[], now: number): Stats {
  const weekStart = now - 7 * DAY_MS;
  const monthStart = now - 30 * DAY_MS;
  const month = jobs.filter((job) => job.createdAt >= monthStart);
  const week = month.filter((job) => job.createdAt >= weekStart);
  const byRepo = new Map<string, JobSummary[]>();
  for (const job of month) {
    const key = `${job.repo.owner}/${job.repo.name}`;
    byRepo.set(key, [...(byRepo.get(key) ?? []), job]);
  }
  const repos = [...byRepo]
    .map(([repo, list]) => ({
      repo,
      week: windowStats(list.filter((job) => job.createdAt >= weekStart)),
      month: windowStats(list),
    }))
    .sort((a, b) => b.month.costUsd - a.month.costUsd || a.repo.localeCompare(b.repo));
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const days: DayBucket[] = Array.from({ length: 30 }, (_, i) => ({
    day: today - (29 - i) * DAY_MS,
    jobs: 0,
    succeeded: 0,
    costUsd: 0,
  }));
  for (const job of month) {
    const bucket = days[Math.floor((job.createdAt - (today - 29 * DAY_MS)) / DAY_MS)];
    if (!bucket) continue;
    bucket.jobs++;
    if (succeeded(job)) bucket.succeeded++;
    bucket.costUsd += job.costUsd ?? 0;
  }
  return { total: { week: windowStats(week), month: windowStats(month) }, repos, days };
}
