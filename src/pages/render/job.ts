import type { JobSummary, ViewEvent } from "../../service/jobs-view/types.js";
import { type Html, html } from "../html.js";
import { renderEvent } from "./event.js";
import {
  cost,
  count,
  duration,
  jobPath,
  jobTitle,
  link,
  runMs,
  stateBadge,
  waitMs,
} from "./format.js";
import { layout, type PageViewer } from "./layout.js";

export function isFinished(job: JobSummary): boolean {
  return job.state === "done" || job.state === "failed";
}

/**
 * A job's page: its summary (state, cost, controls), then the transcript
 * stored so far; while the job is not finished, the stream from `next` on
 * appends lines and replaces the summary, and closes on "end".
 */
export function renderJobPage(input: {
  viewer: PageViewer;
  job: JobSummary;
  events: ViewEvent[];
  next: number;
  canControl: boolean;
  now: number;
}): Html {
  const { job } = input;
  const live = !isFinished(job);
  const stream = `${jobPath(job.id)}/events?from=${input.next}`;
  return layout(
    `Job ${job.id}`,
    input.viewer,
    html`<h1>${jobTitle(job)} <span class="muted">(${job.id})</span></h1>
<div${live ? html` hx-ext="sse" sse-connect="${stream}" sse-close="end"` : ""}>
<section class="summary" id="job-summary" aria-live="polite" aria-label="Job summary"${live ? html` sse-swap="summary"` : ""}>
${renderSummary({ job, viewer: input.viewer, canControl: input.canControl, now: input.now })}
</section>
<h2 id="transcript-heading">Transcript</h2>
<ol class="transcript" id="transcript" aria-labelledby="transcript-heading"${live ? html` sse-swap="line" hx-swap="beforeend"` : ""}>
${input.events.map((event, i) => renderEvent(event, i))}
</ol>
</div>`,
  );
}

/** The summary and its controls: on the page, and swapped in by the stream as the job moves. */
export function renderSummary(input: {
  job: JobSummary;
  viewer: PageViewer;
  canControl: boolean;
  now: number;
}): Html {
  const { job, now } = input;
  const entry = (term: string, value: Html | string) =>
    html`<dt>${term}</dt><dd>${value === "" ? html`<span class="muted">&ndash;</span>` : value}</dd>`;
  return html`<dl>
${entry("State", stateBadge(job))}
${job.cancelledBy ? entry("Cancelled by", job.cancelledBy) : ""}
${entry("Kind", job.task ? `${job.kind} (${job.task})` : job.kind)}
${entry("Repository", `${job.repo.owner}/${job.repo.name}`)}
${entry("Requester", job.requester ?? "")}
${entry("Trigger", link(job.triggerUrl, job.triggerUrl ?? ""))}
${job.state === "queued" ? entry("Queue position", String(job.queuePosition ?? "")) : ""}
${entry("Wait", duration(waitMs(job, now)))}
${entry("Run time", duration(runMs(job, now)))}
${entry("Turns", count(job.turns))}
${entry("Tokens", count(job.tokens))}
${entry("Cost", html`<span id="job-cost">${cost(job.costUsd) || "–"}</span>`)}
${entry("Outcome", job.outcome ? `${job.outcome.conclusion}${job.outcome.message ? `: ${job.outcome.message}` : ""}` : "")}
${entry(
  "Links",
  html`${link(job.links.pullRequest, "pull request")} ${link(job.links.branch, "branch")} ${link(job.links.comment, "comment")}`,
)}
</dl>
${controls(input)}`;
}

function controls(input: { job: JobSummary; viewer: PageViewer; canControl: boolean }): Html {
  const { job } = input;
  if (!input.canControl) return html``;
  const form = (action: string, label: string, cls: string) =>
    html`<form method="post" action="${jobPath(job.id)}/${action}">
<input type="hidden" name="csrf" value="${input.viewer.csrf}">
<button type="submit" class="${cls}">${label}</button>
</form>`;
  const buttons: Html[] = [];
  if (!isFinished(job) && !job.cancelledBy) buttons.push(form("cancel", "Cancel job", "danger"));
  if (job.state === "failed") buttons.push(form("retry", "Retry job", ""));
  return buttons.length ? html`<div class="controls">${buttons}</div>` : html``;
}
