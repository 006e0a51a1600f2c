import type { IncomingMessage, ServerResponse } from "node:http";
import { errorMessage } from "../error-message.js";
import type { JobState, JobSummary, JobsView } from "../service/jobs-view/types.js";
import { type Access, createAccess, githubRepoLookup, SignedOutError } from "./auth/access.js";
import { clearCookie, readCookies } from "./auth/cookies.js";
import { createSessionCodec, type Session, sameSecret } from "./auth/session.js";
import { type PagesLog, readForm, redirect, sendHtml, sendStatic } from "./http.js";
import { renderJobPage, renderSummary } from "./render/job.js";
import type { PageViewer } from "./render/layout.js";
import { type ListQuery, renderListPage, renderRows } from "./render/list.js";
import { pagesOffPage, problemPage, signedOutPage } from "./render/pages.js";
import { renderStatsPage } from "./render/stats.js";
import type { PagesConfig, PagesSettings } from "./settings.js";
import { createSignIn, SESSION_COOKIE } from "./sign-in.js";
import { startingIndex, streamJob } from "./sse.js";
import { staticFile } from "./static.js";
import { computeStats } from "./stats.js";
import { createVisibility } from "./visible.js";

/**
 * The job pages under /jobs, as one handler for Probot's server (or any
 * node:http server): it answers what is under /jobs and returns false for
 * the rest. Sign-in with GitHub, then every page shows only jobs of
 * repositories the person can read (auth/access.ts); every POST carries
 * the session's CSRF token.
 */

export type { PagesLog };

export interface PagesOptions {
  config: PagesConfig;
  /** Undefined: the App has no job view yet; the pages say so. */
  view?: JobsView | undefined;
  clock?: { now(): number };
  log?: PagesLog | undefined;
  /** Default: each person's own token against GitHub, cached 60 s. */
  access?: Access | undefined;
  /** How often the list refreshes its rows (default 3 s). */
  listRefreshMs?: number | undefined;
  heartbeatMs?: number | undefined;
}

export type PagesHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

const MAX_ROWS = 500;
const STATES = new Set<string>(["queued", "running", "done", "failed"]);
const RESERVED = new Set(["login", "callback", "logout", "signed-out", "stats", "rows", "static"]);

export function createPagesHandler(options: PagesOptions): PagesHandler {
  const { config } = options;
  const clock = options.clock ?? Date;
  return async (req, res) => {
    const url = new URL(req.url ?? "/", "http://pages.invalid");
    const path = url.pathname;
    if (path !== "/jobs" && !path.startsWith("/jobs/")) return false;
    if (path.startsWith("/jobs/static/")) {
      const file =
        req.method === "GET" ? staticFile(path.slice("/jobs/static/".length)) : undefined;
      if (file) sendStatic(res, file.type, file.body);
      else sendHtml(res, 404, problemPage("Not found", "There is no such file."));
      return true;
    }
    if (!config.on) {
      sendHtml(res, 404, pagesOffPage(config.missing));
      return true;
    }
    if (!options.view) {
      sendHtml(
        res,
        503,
        problemPage("Job pages not ready", "This App was started without a job view."),
      );
      return true;
    }
    const routes = pagesRoutes(config.settings, options.view, options, clock);
    await routes(req, res, url);
    return true;
  };
}

function pagesRoutes(
  settings: PagesSettings,
  view: JobsView,
  options: PagesOptions,
  clock: { now(): number },
) {
  const codec = createSessionCodec(settings.sessionSecret, clock);
  const secure = settings.publicUrl.startsWith("https:");
  const access =
    options.access ??
    createAccess({ admins: settings.admins, lookup: githubRepoLookup(settings.apiBaseUrl), clock });
  const publicOrigin = new URL(settings.publicUrl).origin;
  const refreshMs = options.listRefreshMs ?? 3_000;

  const pageViewer = (session: Session): PageViewer => ({
    login: session.login,
    csrf: session.csrf,
    operator: access.isOperator(session),
  });

  const visibility = createVisibility(view, access);
  const visible = visibility.jobs;
  const visibleJob = visibility.job;
  const signIn = createSignIn({ settings, codec, secure, log: options.log });

  const listQuery = (url: URL): ListQuery => {
    const installation = url.searchParams.get("installation")?.trim();
    const repo = url.searchParams.get("repo")?.trim();
    const state = url.searchParams.get("state") ?? "";
    return {
      installationId: installation && /^\d+$/.test(installation) ? Number(installation) : undefined,
      repo: repo || undefined,
      state: STATES.has(state) ? (state as JobState) : undefined,
    };
  };

  const notFound = (res: ServerResponse, session: Session) =>
    sendHtml(
      res,
      404,
      problemPage("No such job", "There is no job here that you can see.", pageViewer(session)),
    );

  /** A POST from one of our own forms: the session's CSRF token, and our origin when the browser says one. */
  const checkPost = async (req: IncomingMessage, session: Session): Promise<boolean> => {
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== publicOrigin) return false;
    let form: URLSearchParams;
    try {
      form = await readForm(req);
    } catch {
      return false;
    }
    return sameSecret(form.get("csrf") ?? "", session.csrf);
  };

  const refuseCsrf = (res: ServerResponse, session?: Session) =>
    sendHtml(
      res,
      403,
      problemPage(
        "Not accepted",
        "This form was not sent from this page, or the page is too old. Reload it and try again.",
        session ? pageViewer(session) : undefined,
      ),
    );

  const control = async (
    req: IncomingMessage,
    res: ServerResponse,
    session: Session,
    id: string,
    action: "cancel" | "retry",
  ) => {
    if (!(await checkPost(req, session))) return refuseCsrf(res, session);
    const job = await visibleJob(session, id);
    if (!job) return notFound(res, session);
    if (!(await access.canControl(session, job.repo))) {
      return sendHtml(
        res,
        403,
        problemPage(
          "Not allowed",
          "Cancelling or retrying a job takes write access to its repository.",
          pageViewer(session),
        ),
      );
    }
    if (action === "cancel") await view.cancel(id, session.login);
    else await view.retry(id, session.login);
    redirect(res, `/jobs/${encodeURIComponent(id)}`);
  };

  const signedInRoutes = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    session: Session,
  ) => {
    const path = url.pathname;
    const method = req.method ?? "GET";
    const viewer = pageViewer(session);
    if (path === "/jobs/logout" && method === "POST") {
      if (!(await checkPost(req, session))) return refuseCsrf(res, session);
      return redirect(res, "/jobs/signed-out", {
        "set-cookie": clearCookie(SESSION_COOKIE, secure),
      });
    }
    // The list, or just its rows (what the list's refresh asks for).
    if (path === "/jobs" || path === "/jobs/" || path === "/jobs/rows") {
      const query = listQuery(url);
      const seen = await visible(session, {
        installationId: query.installationId,
        repo: query.repo,
        state: query.state,
      });
      const list = { query, jobs: seen.slice(0, MAX_ROWS), now: clock.now(), refreshMs };
      return sendHtml(
        res,
        200,
        path === "/jobs/rows" ? renderRows(list) : renderListPage({ viewer, ...list }),
      );
    }
    if (path === "/jobs/stats") {
      const jobs = await visible(session, {});
      return sendHtml(
        res,
        200,
        renderStatsPage({ viewer, stats: computeStats(jobs, clock.now()) }),
      );
    }
    const match = /^\/jobs\/([^/]+)(?:\/(events|cancel|retry))?$/.exec(path);
    const id = match?.[1] ? safeDecode(match[1]) : undefined;
    if (!match || id === undefined || RESERVED.has(id)) return notFound(res, session);
    const action = match[2];
    if (action === "cancel" || action === "retry") {
      if (method !== "POST")
        return sendHtml(res, 405, problemPage("Use the button", "This takes a POST.", viewer), {
          allow: "POST",
        });
      return control(req, res, session, id, action);
    }
    const job = await visibleJob(session, id);
    if (!job) return notFound(res, session);
    const canControl = await access.canControl(session, job.repo);
    const summary = (current: JobSummary) =>
      renderSummary({ job: current, viewer, canControl, now: clock.now() });
    if (action === "events") {
      return streamJob(req, res, {
        view,
        id,
        from: startingIndex(req, url.searchParams.get("from")),
        summary,
        ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
      });
    }
    const stored = await view.events(id, 0);
    return sendHtml(
      res,
      200,
      renderJobPage({
        viewer,
        job,
        events: stored.events,
        next: stored.next,
        canControl,
        now: clock.now(),
      }),
    );
  };

  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const path = url.pathname;
    const method = req.method ?? "GET";
    if (path === "/jobs/login") return signIn.start(res, url);
    if (path === "/jobs/callback") return signIn.callback(req, res, url);
    if (path === "/jobs/signed-out") return sendHtml(res, 200, signedOutPage());
    const session = codec.openSession(readCookies(req).get(SESSION_COOKIE));
    const fragment = path === "/jobs/rows" || path.endsWith("/events");
    if (!session) {
      if (method === "POST") return refuseCsrf(res);
      if (fragment) {
        res.writeHead(401, { "cache-control": "no-store" }).end();
        return;
      }
      return redirect(res, `/jobs/login?next=${encodeURIComponent(path + url.search)}`);
    }
    if (method !== "GET" && method !== "POST") {
      res.writeHead(405, { allow: "GET, POST" }).end();
      return;
    }
    try {
      await signedInRoutes(req, res, url, session);
    } catch (error) {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (error instanceof SignedOutError) {
        const clear = { "set-cookie": clearCookie(SESSION_COOKIE, secure) };
        if (fragment) {
          res.writeHead(401, clear).end();
          return;
        }
        return redirect(res, `/jobs/login?next=${encodeURIComponent(path + url.search)}`, clear);
      }
      options.log?.warn({ error: errorMessage(error), path }, "job pages: request failed");
      sendHtml(
        res,
        502,
        problemPage(
          "Something failed",
          "The page could not be made; try again.",
          pageViewer(session),
        ),
      );
    }
  };
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
