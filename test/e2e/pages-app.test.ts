import { existsSync, mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { createNodeMiddleware, Probot, ProbotOctokit } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Model } from "../../src/agent/model/model.js";
import { createApp } from "../../src/app/index.js";
import { createGitHubAppClients } from "../../src/github/client.js";
import {
  aim,
  examplePayload,
  OWNER,
  type Payload,
  PRIVATE_KEY,
  REPO,
} from "../helpers/app-harness.js";
import { ADD_BUG_FILES, fixAddSteps } from "../helpers/demo-repo.js";
import { type FakeGitHubSite, startFakeGitHubSite } from "../helpers/fake-github-site.js";
import {
  type BareRepo,
  createBareRepo,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";
import { createHeldModel, type HeldModel } from "../helpers/held-model.js";
import { callTool } from "../helpers/model-script.js";
import { postWebhook } from "../helpers/service-process.js";

/**
 * The job pages of the real App, end to end in Chromium: createApp with its
 * own embedded queue and event log, served by Probot's middleware on one
 * loopback port (webhooks and /jobs side by side), GitHub Enterprise on
 * loopback for both the App's API and the OAuth web flow. Two signed
 * `@agent` webhooks start real jobs whose scripted models move one turn at
 * a time while people look:
 *   - a reader signs in through GitHub's redirect flow, sees the running job
 *     and the one queued behind it, watches tool calls and the final state
 *     arrive on the job page without a reload, and has no Cancel button;
 *   - an outsider (no access to the repository) sees neither job, and the
 *     job page is a 404;
 *   - an operator (PATCHWRIGHT_ADMINS) sees both;
 *   - a writer, who asked for the second job, cancels it while it runs: the
 *     page says so, and so does its tracking comment, naming them.
 * The tracking comments and the pull request link the job's page.
 * Screenshots go to test-results/pages-app/.
 */

const CHROMIUM = "/usr/bin/chromium";
const SHOTS = join("test-results", "pages-app");
const WEBHOOK_SECRET = "pages-app-webhook-secret";
const CLIENT_ID = "Iv1.pagesappclient";
const CLIENT_SECRET = "pages-app-client-secret-0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-pages-0123456789abcdef";
const REPO_KEY = `${OWNER}/${REPO}`;
/** fake-github.ts's installation token (the job's git token), which the redactor knows. */
const INSTALLATION_TOKEN = "ghs_faketoken1234567890abcdefghijklmnop";

/** Probot spaces writes a second apart unless throttling is off after its own defaults (see app-harness.ts). */
const UNTHROTTLED = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { ...(options.throttle as object), enabled: false },
}));

async function until<T>(
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  what: string,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** The worker's GitHub client logs its 404s (no .github/patchwright.yml) to the console otherwise. */
const quiet = process.env.PW_TEST_LOG ? console : { debug() {}, info() {}, warn() {}, error() {} };

describe.skipIf(!existsSync(CHROMIUM))("the App's job pages in Chromium", () => {
  let tmp: TempDir;
  let repo: BareRepo;
  let site: FakeGitHubSite;
  let server: Server;
  let appUrl = "";
  let stopApp: ((graceMs?: number) => Promise<void>) | undefined;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  // Job A (octocat's): held before its first and second model turns, then
  // runs to a pull request. Job B (wes's): held after its first tool call
  // until it is cancelled. One job at a time, so B waits behind A.
  // A's first turn quotes the model key: the pages must show it redacted.
  const [, ...restOfFix] = fixAddSteps();
  const modelA: HeldModel = createHeldModel(
    [
      callTool(
        "read_file",
        { file_path: "src/add.js" },
        { say: `Reading add() with key ${ANTHROPIC_KEY} at hand.` },
      ),
      ...restOfFix,
    ],
    [1, 2],
  );
  const modelB: HeldModel = createHeldModel(fixAddSteps(), [2]);
  const models: Model[] = [modelA, modelB];
  let modelsGiven = 0;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    tmp = makeTempDir("pw-pages-app-");
    const env = gitTestEnv(join(tmp.path, "home"));
    repo = createBareRepo({ root: tmp.path, env, files: ADD_BUG_FILES });
    site = await startFakeGitHubSite({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      people: {
        rita: { [REPO_KEY]: "read" },
        wes: { [REPO_KEY]: "write" },
        olga: { "other/thing": "write" },
      },
      api: { owner: OWNER, repo: REPO, permissions: { octocat: "write", wes: "write" } },
    });

    // The port first: PATCHWRIGHT_PUBLIC_URL names it, and the App reads that once.
    let middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => unknown = (
      _req,
      res,
    ) => res.writeHead(503).end();
    server = createServer((req, res) => {
      void middleware(req, res, () => res.writeHead(404).end("not ours"));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const apiBaseUrl = `${site.url}/api/v3`;
    const created = createApp({
      env: {
        ...env,
        APP_ID: "1",
        PRIVATE_KEY,
        WEBHOOK_SECRET,
        GHE_HOST: site.url.replace("http://", ""),
        GHE_PROTOCOL: "http",
        ANTHROPIC_API_KEY: ANTHROPIC_KEY,
        PATCHWRIGHT_CACHE_DIR: join(tmp.path, "cache"),
        PATCHWRIGHT_BOT_LOGIN: "patchwright[bot]",
        PATCHWRIGHT_DEPS_SCHEDULER: "off",
        PATCHWRIGHT_CONCURRENCY: "1",
        GITHUB_CLIENT_ID: CLIENT_ID,
        GITHUB_CLIENT_SECRET: CLIENT_SECRET,
        PATCHWRIGHT_PUBLIC_URL: appUrl,
        PATCHWRIGHT_ADMINS: "ops",
      },
      // The worker's clients as npm start builds them on GHE_HOST, with GitHub's spacing shrunk.
      github: createGitHubAppClients({
        appId: 1,
        privateKey: PRIVATE_KEY,
        baseUrl: apiBaseUrl,
        secondMs: 1,
        log: quiet,
      }),
      createModel: () => {
        const model = models[modelsGiven++];
        if (!model) throw new Error(`no model for job ${modelsGiven}`);
        return model;
      },
      queuePollMs: 200,
    });
    stopApp = created.stop;
    const probot = new Probot({
      appId: 1,
      privateKey: PRIVATE_KEY,
      secret: WEBHOOK_SECRET,
      baseUrl: apiBaseUrl,
      logLevel: (process.env.PW_TEST_LOG as "info" | undefined) ?? "fatal",
      Octokit: UNTHROTTLED,
    });
    middleware = await createNodeMiddleware(created.app, { probot });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close().catch(() => {});
    // Held models let go, so nothing waits on a gate while the worker stops.
    for (const model of [modelA, modelB])
      for (const n of [1, 2]) {
        try {
          model.release(n);
        } catch {}
      }
    await stopApp?.(0).catch(() => {});
    server?.closeAllConnections();
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
    await site?.close();
    tmp?.remove();
  }, 60_000);

  /** `@agent` on an issue, as GitHub delivers it (signed), from `sender`. */
  async function mention(sender: string, issue: number, commentId: number): Promise<void> {
    const payload = aim(
      examplePayload("issue_comment", "created", (p: Payload) => !p.issue.pull_request),
      repo.url,
      { login: sender },
    );
    payload.issue.number = issue;
    payload.issue.title = "add() returns the wrong sum";
    payload.issue.state = "open";
    payload.issue.locked = false;
    payload.comment.body = "@agent fix add";
    payload.comment.id = commentId;
    payload.comment.user = { ...payload.comment.user, login: sender };
    payload.comment.html_url = `https://github.com/${REPO_KEY}/issues/${issue}#issuecomment-${commentId}`;
    const port = Number(new URL(appUrl).port);
    const status = await postWebhook(
      port,
      WEBHOOK_SECRET,
      "issue_comment",
      `d-${commentId}`,
      payload,
    );
    expect(status).toBe(200);
  }

  /** The bot's comments on an issue. */
  const comments = (issue: number) => (site.api.comments.get(issue) ?? []).map((c) => c.body);

  /** A new browser profile, signed in as `login` through /jobs -> GitHub -> /jobs/callback. */
  async function signedIn(login: string, dark = false): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      colorScheme: dark ? "dark" : "light",
    });
    // Generous on a busy machine, and bounded.
    context.setDefaultTimeout(20_000);
    contexts.push(context);
    const page = await context.newPage();
    site.oauth.signInAs(login);
    const response = await page.goto(`${appUrl}/jobs`);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${appUrl}/jobs`);
    await page.getByText(`Signed in as ${login}`).waitFor();
    return page;
  }

  /** Marks the page; the mark survives only if the page is never reloaded. */
  const mark = (page: Page) =>
    page.evaluate(() => {
      (globalThis as unknown as { stayed: boolean }).stayed = true;
    });
  const stayed = (page: Page) =>
    page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed === true);

  it("shows each person what they may see, live, and a writer cancels", async () => {
    // Job A starts and waits before its first turn; job B queues behind it.
    await mention("octocat", 7, 555);
    await modelA.arrived(1);
    const linkA = await until(
      () =>
        comments(7)
          .join("\n")
          .match(new RegExp(`${appUrl}/jobs/([\\w-]+)`)),
      "job A's tracking comment with its page",
    );
    const idA = linkA[1] ?? "";
    await mention("wes", 8, 556);

    // The reader: both jobs, A running and B queued, with no reload.
    const reader = await signedIn("rita");
    const rowA = reader.locator(`#job-${idA}`);
    await rowA.and(reader.locator('[data-state="running"]')).waitFor();
    const rowB = reader.locator('#job-rows tr[data-state="queued"]');
    await rowB.waitFor();
    const idB = ((await rowB.getAttribute("id")) ?? "").replace(/^job-/, "");
    expect(idB).not.toBe("");
    expect(await rowB.textContent()).toContain("wes");
    expect(await rowA.textContent()).toContain(REPO_KEY);
    await mark(reader);
    await reader.screenshot({ path: join(SHOTS, "list-reader.png"), fullPage: true });

    // The outsider: nothing in the list, no page for either job.
    const outsider = await signedIn("olga", true);
    await outsider.getByText("No jobs to show.").waitFor();
    expect(await outsider.locator(`#job-${idA}, #job-${idB}`).count()).toBe(0);
    await outsider.screenshot({ path: join(SHOTS, "list-outsider-dark.png"), fullPage: true });
    for (const id of [idA, idB]) {
      const refused = await outsider.goto(`${appUrl}/jobs/${id}`);
      expect(refused?.status()).toBe(404);
      expect(await outsider.content()).not.toContain(REPO_KEY);
    }
    await outsider.screenshot({ path: join(SHOTS, "job-outsider-404-dark.png"), fullPage: true });

    // The operator: no access of their own on GitHub, and sees both.
    const operator = await signedIn("ops");
    await operator.locator(`#job-${idA}`).waitFor();
    await operator.locator(`#job-${idB}`).waitFor();
    await operator.screenshot({ path: join(SHOTS, "list-operator.png"), fullPage: true });

    // The reader opens job A in a second tab and watches it move, turn by turn.
    const watch = await reader.context().newPage();
    await watch.goto(`${appUrl}/jobs/${idA}`);
    await watch.getByRole("heading", { name: new RegExp(`on ${REPO_KEY}`) }).waitFor();
    await watch.locator("#job-summary .state-running").waitFor();
    expect(await watch.locator("#transcript li.ev-tool_call").count()).toBe(0);
    expect(await watch.getByRole("button", { name: "Cancel job" }).count()).toBe(0);
    await mark(watch);
    modelA.release(1);
    await watch
      .locator("#transcript li.ev-tool_call", { hasText: "read_file" })
      .waitFor({ timeout: 15_000 });
    await watch
      .locator("#transcript li.ev-tool_result", { hasText: "a - b" })
      .waitFor({ timeout: 15_000 });
    // Held before turn 2: the call is on the page while the job still runs.
    await modelA.arrived(2);
    expect(await watch.locator("#job-summary .state-running").count()).toBe(1);
    // The cost so far, while it runs: the record keeps the totals before the usage line is shown.
    await watch.locator("#job-cost", { hasText: /\$\d/ }).waitFor({ timeout: 10_000 });
    await watch.screenshot({ path: join(SHOTS, "job-reader-live.png"), fullPage: true });
    modelA.release(2);
    await watch
      .locator("#transcript li.ev-tool_call", { hasText: "edit_file" })
      .waitFor({ timeout: 15_000 });
    await watch.locator("#job-summary .state-done").waitFor({ timeout: 30_000 });
    await watch.locator("#transcript pre.report").waitFor();
    expect(await stayed(watch)).toBe(true);
    expect(await watch.locator("#job-cost").textContent()).toMatch(/\$\d/);
    const said = watch.locator("#transcript li.ev-text", { hasText: "Reading add()" });
    expect(await said.textContent()).toContain("[redacted");
    const page = await watch.content();
    for (const secret of [ANTHROPIC_KEY, INSTALLATION_TOKEN, CLIENT_SECRET, WEBHOOK_SECRET])
      expect(page).not.toContain(secret);
    for (const token of site.oauth.tokens.keys()) expect(page).not.toContain(token);
    await watch.screenshot({ path: join(SHOTS, "job-reader-done.png"), fullPage: true });

    // A's pull request and comment link its page.
    const jobPageA = `${appUrl}/jobs/${idA}`;
    await until(() => site.api.pulls.length > 0, "job A's pull request");
    expect(site.api.pulls[0]?.body).toContain(jobPageA);
    expect(comments(7).join("\n")).toContain(jobPageA);

    // B starts once A is done, and is held after its first tool call.
    await modelB.arrived(2);

    // The reader's list, never reloaded: A done, B running.
    await rowA.and(reader.locator('[data-state="done"]')).waitFor({ timeout: 15_000 });
    await reader
      .locator(`#job-${idB}`)
      .and(reader.locator('[data-state="running"]'))
      .waitFor({ timeout: 15_000 });
    expect(await stayed(reader)).toBe(true);
    await reader.screenshot({ path: join(SHOTS, "list-reader-later.png"), fullPage: true });

    // The reader may see B, not cancel it.
    await watch.goto(`${appUrl}/jobs/${idB}`);
    await watch.locator("#job-summary .state-running").waitFor();
    expect(await watch.getByRole("button", { name: "Cancel job" }).count()).toBe(0);

    // The writer cancels B while it runs; the page shows it without a reload.
    const writer = await signedIn("wes", true);
    await writer.goto(`${appUrl}/jobs/${idB}`);
    await writer.locator("#job-summary .state-running").waitFor();
    await writer.locator("#transcript li.ev-tool_call", { hasText: "read_file" }).waitFor();
    await writer.getByRole("button", { name: "Cancel job" }).click();
    await writer.waitForURL(`${appUrl}/jobs/${idB}`);
    await mark(writer);
    await writer.locator("#job-summary .state-cancelled").waitFor({ timeout: 20_000 });
    expect(await writer.locator("#job-summary").textContent()).toContain("wes");
    expect(await writer.getByRole("button", { name: "Cancel job" }).count()).toBe(0);
    expect(await stayed(writer)).toBe(true);
    await writer.screenshot({ path: join(SHOTS, "job-cancelled-writer-dark.png"), fullPage: true });

    // B's tracking comment says who cancelled it, and links its page.
    const last = await until(
      () => comments(8).find((body) => body.includes("Cancelled by @wes")),
      "B's comment to say who cancelled it",
    );
    expect(last).toContain(`${appUrl}/jobs/${idB}`);
    expect(site.api.pulls).toHaveLength(1);

    // The operator's list, at the end: A done, B cancelled.
    await operator.goto(`${appUrl}/jobs`);
    await operator.locator(`#job-${idA}`).and(operator.locator('[data-state="done"]')).waitFor();
    await operator.locator(`#job-${idB} .state-cancelled`).waitFor();
    await operator.screenshot({ path: join(SHOTS, "list-operator-end.png"), fullPage: true });

    // Who asked GitHub about what: people's own tokens, never the operator's.
    expect(site.oauth.repoRequests).toContain(`rita ${REPO_KEY}`);
    expect(site.oauth.repoRequests).toContain(`olga ${REPO_KEY}`);
    expect(site.oauth.repoRequests.some((line) => line.startsWith("ops "))).toBe(false);
  }, 120_000);
});
