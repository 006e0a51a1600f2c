import type { JobSummary } from "../../service/jobs-view/types.js";
import { type Html, html } from "../html.js";

/** How long, for a person: 45 s, 3 min 20 s, 2 h 5 min. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return "";
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function cost(usd: number | undefined): string {
  if (usd === undefined) return "";
  return `$${usd < 10 ? usd.toFixed(3) : usd.toFixed(2)}`;
}

export function count(value: number | undefined): string {
  return value === undefined ? "" : value.toLocaleString("en-US");
}

/** What a person calls the state: a cancelled job is not just "failed". */
export function stateLabel(job: JobSummary): string {
  if (job.cancelledBy && (job.state === "done" || job.state === "failed")) return "cancelled";
  if (job.cancelledBy && job.state === "running") return "cancelling";
  return job.state;
}

export function stateBadge(job: JobSummary): Html {
  const label = stateLabel(job);
  return html`<span class="state state-${label}">${label}</span>`;
}

export function waitMs(job: JobSummary, now: number): number | undefined {
  const until = job.startedAt ?? (job.state === "queued" ? now : job.finishedAt);
  return until === undefined ? undefined : until - job.createdAt;
}

export function runMs(job: JobSummary, now: number): number | undefined {
  if (job.startedAt === undefined) return undefined;
  return (job.finishedAt ?? now) - job.startedAt;
}

/** A link only to http(s): a `javascript:` or other scheme from a record stays text. */
export function link(url: string | undefined, label: string): Html {
  if (!url) return html``;
  return /^https?:\/\//i.test(url) ? html`<a href="${url}">${label}</a>` : html`${label}`;
}

export function jobTitle(job: JobSummary): string {
  return `${job.task ?? job.kind} on ${job.repo.owner}/${job.repo.name}`;
}

export function jobPath(id: string): string {
  return `/jobs/${encodeURIComponent(id)}`;
}
