import { type Html, html } from "../html.js";
import type { Stats, WindowStats } from "../stats.js";
import { barChart } from "./charts.js";
import { cost, count, duration } from "./format.js";
import { layout, type PageViewer } from "./layout.js";

const percent = (rate: number | undefined) =>
  rate === undefined ? "–" : `${Math.round(rate * 100)}%`;

function cells(stats: WindowStats): Html {
  return html`<td class="num">${stats.jobs}</td><td class="num">${percent(stats.successRate)}</td>
<td class="num">${duration(stats.medianRunMs) || "–"}</td><td class="num">${count(stats.tokens)}</td>
<td class="num">${cost(stats.costUsd)}</td>`;
}

export function renderStatsPage(input: { viewer: PageViewer; stats: Stats }): Html {
  const { stats } = input;
  const day = (ms: number) => new Date(ms).toISOString().slice(5, 10);
  const jobsChart = barChart({
    title: "Jobs per day",
    description: "the last 30 days; the green part succeeded",
    bars: stats.days.map((d) => ({ label: day(d.day), value: d.jobs, part: d.succeeded })),
    format: (v) => `${v} jobs`,
  });
  const costChart = barChart({
    title: "Cost per day",
    description: "the last 30 days, in US dollars",
    bars: stats.days.map((d) => ({ label: day(d.day), value: d.costUsd })),
    format: cost,
  });
  const repoChart = barChart({
    title: "Cost per repository",
    description: "the last 30 days, most expensive first",
    bars: stats.repos.slice(0, 20).map((r) => ({ label: r.repo, value: r.month.costUsd })),
    format: cost,
  });
  const head = html`<th scope="col" class="num">Jobs</th><th scope="col" class="num">Success</th>
<th scope="col" class="num">Median run</th><th scope="col" class="num">Tokens</th><th scope="col" class="num">Cost</th>`;
  return layout(
    "At a glance",
    input.viewer,
    html`<h1>At a glance</h1>
<div class="stats">
<section class="card" aria-labelledby="h-week"><h2 id="h-week">Last 7 days</h2>${summary(stats.total.week)}</section>
<section class="card" aria-labelledby="h-month"><h2 id="h-month">Last 30 days</h2>${summary(stats.total.month)}</section>
<section class="card"><h3>Jobs per day</h3>${jobsChart}</section>
<section class="card"><h3>Cost per day</h3>${costChart}</section>
<section class="card"><h3>Cost per repository (30 days)</h3>${repoChart}</section>
</div>
<h2 id="h-repos">Per repository</h2>
<div class="table-wrap" role="region" aria-labelledby="h-repos" tabindex="0">
<table>
<thead><tr><th scope="col" rowspan="2">Repository</th><th scope="colgroup" colspan="5">Last 7 days</th><th scope="colgroup" colspan="5">Last 30 days</th></tr>
<tr>${head}${head}</tr></thead>
<tbody>
${stats.repos.length === 0 ? html`<tr><td colspan="11" class="muted">No jobs in the last 30 days.</td></tr>` : ""}
${stats.repos.map((r) => html`<tr><th scope="row">${r.repo}</th>${cells(r.week)}${cells(r.month)}</tr>`)}
<tr><th scope="row">Total</th>${cells(stats.total.week)}${cells(stats.total.month)}</tr>
</tbody>
</table>
</div>`,
  );
}

function summary(stats: WindowStats): Html {
  return html`<dl class="summary-grid">
<dt>Jobs</dt><dd>${stats.jobs}</dd>
<dt>Success rate</dt><dd>${percent(stats.successRate)}</dd>
<dt>Median run time</dt><dd>${duration(stats.medianRunMs) || "–"}</dd>
<dt>Tokens</dt><dd>${count(stats.tokens)}</dd>
<dt>Cost</dt><dd>${cost(stats.costUsd)}</dd>
</dl>`;
}
