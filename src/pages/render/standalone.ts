import type { JobSummary, ViewEvent } from "../../service/jobs-view/types.js";
import { type Html, html, trusted } from "../html.js";
import { renderEvent } from "./event.js";
import { jobTitle } from "./format.js";
import { renderSummary } from "./job.js";
import { PAGES_CSS } from "./style.js";

/**
 * A finished job's page as one file, for a place with no server behind it
 * (the Action's run): the same summary and transcript as the live page,
 * its stylesheet inline, no script and no control. What it shows went
 * through the job's redactor when it was recorded, and is escaped here.
 */
export function renderStandaloneJob(input: {
  job: JobSummary;
  events: readonly ViewEvent[];
  now: number;
}): Html {
  const { job } = input;
  const viewer = { login: "", csrf: "", operator: false };
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${jobTitle(job)} &middot; patchwright</title>
<style>${trusted(PAGES_CSS)}</style>
</head>
<body>
<main id="main">
<h1>${jobTitle(job)} <span class="muted">(${job.id})</span></h1>
<section class="summary" aria-label="Job summary">
${renderSummary({ job, viewer, canControl: false, now: input.now })}
</section>
<h2 id="transcript-heading">Transcript</h2>
<ol class="transcript" aria-labelledby="transcript-heading">
${input.events.map((event, i) => renderEvent(event, i))}
</ol>
</main>
</body>
</html>`;
}
