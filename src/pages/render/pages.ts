import { type Html, html } from "../html.js";
import { layout, messagePage, type PageViewer } from "./layout.js";

/** The pages' own small pages: off, signed out, and the refusals. */

export function pagesOffPage(missing: string[]): Html {
  return layout(
    "Job pages are off",
    undefined,
    html`<h1>Job pages are off</h1>
<p>This App shows its jobs only to people who sign in with GitHub, and it has no OAuth client to sign them in with.</p>
<p>To turn the pages on, set ${missing.map((name, i) => html`${i ? ", " : ""}<code>${name}</code>`)} in the App's environment and restart it:</p>
<ul>
<li><code>GITHUB_CLIENT_ID</code> and <code>GITHUB_CLIENT_SECRET</code>: the App's OAuth client (Probot's setup writes them to <code>.env</code>; otherwise from the App's settings page on GitHub).</li>
<li><code>PATCHWRIGHT_PUBLIC_URL</code>: where people reach this server; set the App's callback URL on GitHub to it followed by <code>/jobs/callback</code>.</li>
<li>Optional: <code>PATCHWRIGHT_ADMINS</code> (logins who see and cancel every job) and <code>PATCHWRIGHT_SESSION_SECRET</code> (at least 32 characters; else derived from the client and webhook secrets).</li>
</ul>`,
  );
}

export function signedOutPage(): Html {
  return messagePage("Signed out", [
    html`You are signed out. <a href="/jobs/login">Sign in with GitHub</a> again.`,
  ]);
}

export function problemPage(title: string, text: string, viewer?: PageViewer | undefined): Html {
  return messagePage(title, [html`${text}`, html`<a href="/jobs">Back to the jobs</a>`], viewer);
}
