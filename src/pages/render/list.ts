import type { JobState, JobSummary } from "../../service/jobs-view/types.js";
import { type Html, html } from "../html.js";
import { cost, count, duration, jobPath, link, runMs, stateBadge, waitMs } from "./format.js";
import { layout, type PageViewer } from "./layout.js";

export interface ListQuery {
  installationId?: number | undefined;
  repo?: string | undefined;
  state?: JobState | undefined;
}

const STATES: JobState[] = ["queued", "running", "done", "failed"];

export function listQueryString(query: ListQuery): string {
  const params = new URLSearchParams();
  if (query.installationId !== undefined) params.set("installation", String(query.installationId));
  if (query.repo) params.set("repo", query.repo);
  if (query.state) params.set("state", query.state);
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function renderListPage(input: {
  viewer: PageViewer;
  query: ListQuery;
  jobs: JobSummary[];
  now: number;
  refreshMs: number;
}): Html {
  const { query } = input;
  return layout(
    "Jobs",
    input.viewer,
    html`<h1>Jobs</h1>
<form class="filters" method="get" action="/jobs" role="search" aria-label="Filter jobs">
<label for="f-installation">Installation
<input id="f-installation" name="installation" inputmode="numeric" pattern="[0-9]*" value="${query.installationId ?? ""}"></label>
<label for="f-repo">Repository
<input id="f-repo" name="repo" placeholder="owner/name" value="${query.repo ?? ""}"></label>
<label for="f-state">State
<select id="f-state" name="state">
<option value="">any</option>
${STATES.map((state) => html`<option value="${state}"${query.state === state ? html` selected` : ""}>${state}</option>`)}
</select></label>
<button type="submit">Filter</button>
</form>
<div class="table-wrap" role="region" aria-labelledby="jobs-caption" tabindex="0">
<table>
<caption id="jobs-caption">Queued, running and finished jobs you can see, newest first; states refresh by themselves.</caption>
<thead><tr>
<th scope="col">Job</th><th scope="col">Repository</th><th scope="col">Requester</th><th scope="col">Trigger</th>
<th scope="col">State</th><th scope="col" class="num">Queue</th><th scope="col" class="num">Wait</th>
<th scope="col" class="num">Run time</th><th scope="col" class="num">Turns</th><th scope="col" class="num">Tokens</th>
<th scope="col" class="num">Cost</th><th scope="col">Outcome</th><th scope="col">Links</th>
</tr></thead>
${renderRows(input)}
</table>
</div>`,
  );
}

/** The table's body, also what the list's polling swaps in (GET /jobs/rows). */
export function renderRows(input: {
  query: ListQuery;
  jobs: JobSummary[];
  now: number;
  refreshMs: number;
}): Html {
  const every = `every ${Math.max(250, input.refreshMs)}ms`;
  return html`<tbody id="job-rows" hx-get="/jobs/rows${listQueryString(input.query)}" hx-trigger="${every}" hx-swap="outerHTML">
${input.jobs.length === 0 ? html`<tr><td colspan="13" class="muted">No jobs to show.</td></tr>` : ""}
${input.jobs.map((job) => row(job, input.now))}
</tbody>`;
}

function row(job: JobSummary, now: number): Html {
  return html`<tr id="job-${job.id}" data-state="${job.state}">
<td><a href="${jobPath(job.id)}">${job.task ?? job.kind}</a> <span class="muted">${job.id}</span></td>
<td>${job.repo.owner}/${job.repo.name}</td>
<td>${job.requester ?? ""}</td>
<td>${link(job.triggerUrl, "trigger")}</td>
<td>${stateBadge(job)}</td>
<td class="num">${job.state === "queued" ? (job.queuePosition ?? "") : ""}</td>
<td class="num">${duration(waitMs(job, now))}</td>
<td class="num">${duration(runMs(job, now))}</td>
<td class="num">${count(job.turns)}</td>
<td class="num">${count(job.tokens)}</td>
<td class="num">${cost(job.costUsd)}</td>
<td>${job.outcome ? job.outcome.conclusion : ""}</td>
<td>${[
    link(job.links.pullRequest, "PR"),
    link(job.links.branch, "branch"),
    link(job.links.comment, "comment"),
  ].map((item) => html`${item} `)}</td>
</tr>`;
}
