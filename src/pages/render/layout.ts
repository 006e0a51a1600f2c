import { type Html, html } from "../html.js";

export interface PageViewer {
  login: string;
  csrf: string;
  operator: boolean;
}

const HTMX_CONFIG = JSON.stringify({
  // The stylesheet carries htmx's classes; no inline <style>, so the CSP needs no 'unsafe-inline'.
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  selfRequestsOnly: true,
});

/** Every page: one <main>, a skip link, the scripts from our own origin, both themes. */
export function layout(title: string, viewer: PageViewer | undefined, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="htmx-config" content="${HTMX_CONFIG}">
<title>${title} &middot; patchwright</title>
<link rel="stylesheet" href="/jobs/static/pages.css">
<script src="/jobs/static/htmx.min.js" defer></script>
<script src="/jobs/static/sse.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<nav aria-label="Pages"><a href="/jobs">Jobs</a> <a href="/jobs/stats">At a glance</a></nav>
${viewer ? signedIn(viewer) : ""}
</header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>`;
}

function signedIn(viewer: PageViewer): Html {
  return html`<form class="who" method="post" action="/jobs/logout">
<span>Signed in as <strong>${viewer.login}</strong>${viewer.operator ? " (operator)" : ""}</span>
<input type="hidden" name="csrf" value="${viewer.csrf}">
<button type="submit">Sign out</button>
</form>`;
}

/** A page with a heading and a few paragraphs: errors, sign-out, pages off. */
export function messagePage(
  title: string,
  paragraphs: Html[],
  viewer?: PageViewer | undefined,
): Html {
  return layout(title, viewer, html`<h1>${title}</h1>${paragraphs.map((p) => html`<p>${p}</p>`)}`);
}
