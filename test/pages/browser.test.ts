import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PagesHarness, startPagesHarness } from "../helpers/pages-harness.js";

/**
 * The pages in a real browser (Debian's chromium, driven by playwright-core):
 * a reader signs in through the OAuth flow, watches a scripted job go from
 * queued to running in the list, then its tool calls, cost and final state
 * arrive on the job page without a reload; an outsider sees nothing of it;
 * a writer cancels another job. Screenshots go to test-results/pages/.
 */

const CHROMIUM = "/usr/bin/chromium";
const SHOTS = join("test-results", "pages");
const SECRET = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";

async function waitFor(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(!existsSync(CHROMIUM))("job pages in Chromium", () => {
  let h: PagesHarness;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startPagesHarness({
      permissions: {
        rita: { "acme/app": "read" },
        wes: { "acme/app": "write" },
        olga: { "other/thing": "write" },
      },
      secrets: [],
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await h?.close();
  });

  /** A new browser profile, signed in as `login` through /jobs -> GitHub -> /jobs/callback. */
  async function signedIn(login: string, dark = false): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 1200, height: 900 },
      colorScheme: dark ? "dark" : "light",
    });
    contexts.push(context);
    const page = await context.newPage();
    h.github.signInAs(login);
    const response = await page.goto(`${h.url}/jobs`);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${h.url}/jobs`);
    await page.getByText(`Signed in as ${login}`).waitFor();
    return page;
  }

  it("a reader watches a job live; an outsider sees nothing; a writer cancels", async () => {
    const now = Date.now();
    h.view.add({
      id: "job-1",
      repo: { owner: "acme", name: "app" },
      task: "agent",
      requester: "rita",
      triggerUrl: "https://github.com/acme/app/issues/1#issuecomment-1",
      queuePosition: 1,
      createdAt: now,
    });

    // The list: queued, then running without a reload.
    const reader = await signedIn("rita");
    await reader.locator('#job-job-1[data-state="queued"]').waitFor();
    await reader.evaluate(() => {
      (globalThis as unknown as { stayed: boolean }).stayed = true;
    });
    h.view.append("job-1", { at: Date.now(), type: "state", state: "running" });
    await reader.locator('#job-job-1[data-state="running"]').waitFor({ timeout: 5000 });
    await reader.screenshot({ path: join(SHOTS, "list-reader.png"), fullPage: true });
    expect(
      await reader.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed),
    ).toBe(true);

    // The job page: stored transcript, then live lines over SSE.
    h.view.append("job-1", { at: Date.now(), type: "step", text: "agent" });
    await reader.getByRole("link", { name: "agent" }).first().click();
    await reader.waitForURL(`${h.url}/jobs/job-1`);
    await reader.getByRole("heading", { name: /agent on acme\/app/ }).waitFor();
    await waitFor(() => h.view.subscribers("job-1") > 0, "the page's event stream");
    await reader.evaluate(() => {
      (globalThis as unknown as { stayed: boolean }).stayed = true;
    });
    h.view.append("job-1", {
      at: Date.now(),
      type: "tool_call",
      turn: 1,
      id: "call-1",
      name: "bash",
      input: `{"command":"npm test # token ${SECRET}"}`,
    });
    const call = reader.locator("#transcript li.ev-tool_call");
    await call.waitFor();
    expect(await call.textContent()).toContain("npm test");
    h.view.append("job-1", {
      at: Date.now(),
      type: "tool_result",
      turn: 1,
      id: "call-1",
      name: "bash",
      isError: false,
      tail: "Tests  3 passed (3)",
    });
    h.view.append("job-1", {
      at: Date.now(),
      type: "usage",
      turn: 1,
      costUsd: 0.125,
      inputTokens: 1000,
      outputTokens: 200,
    });
    await reader.locator("#job-cost", { hasText: "$0.125" }).waitFor();
    h.view.append("job-1", {
      at: Date.now(),
      type: "report",
      outcome: "success",
      markdown: "## Done\n<img src=x onerror=alert(1)>",
    });
    h.view.append("job-1", { at: Date.now(), type: "state", state: "done" });
    await reader.locator("#job-summary .state-done").waitFor({ timeout: 5000 });
    expect(await reader.locator("#transcript li.ev-tool_result").textContent()).toContain(
      "3 passed",
    );
    expect(await reader.locator("#transcript pre.report").textContent()).toContain(
      "<img src=x onerror=alert(1)>",
    );
    expect(await reader.locator("img").count()).toBe(0);
    expect(
      await reader.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed),
    ).toBe(true);
    const content = await reader.content();
    expect(content).not.toContain(SECRET);
    for (const token of h.github.tokens.keys()) expect(content).not.toContain(token);
    expect(await reader.getByRole("button", { name: "Cancel job" }).count()).toBe(0);
    await reader.screenshot({ path: join(SHOTS, "job-reader.png"), fullPage: true });

    // An outsider: not in the list, and no page.
    const outsider = await signedIn("olga", true);
    expect(await outsider.locator("#job-job-1").count()).toBe(0);
    await outsider.screenshot({ path: join(SHOTS, "list-outsider-dark.png"), fullPage: true });
    const refused = await outsider.goto(`${h.url}/jobs/job-1`);
    expect(refused?.status()).toBe(404);
    expect(await outsider.content()).not.toContain("acme/app");

    // A writer cancels a running job; the page shows it cancelled.
    h.view.add({ id: "job-2", repo: { owner: "acme", name: "app" }, requester: "wes" });
    h.view.append("job-2", { at: Date.now(), type: "state", state: "running" });
    const writer = await signedIn("wes", true);
    await writer.goto(`${h.url}/jobs/job-2`);
    await writer.getByRole("button", { name: "Cancel job" }).click();
    await writer.locator("#job-summary .state-cancelled").waitFor({ timeout: 5000 });
    expect(h.view.cancelled).toEqual([{ id: "job-2", by: "wes" }]);
    expect(await writer.locator("#job-summary").textContent()).toContain("wes");
    await writer.screenshot({ path: join(SHOTS, "job-cancelled-writer-dark.png"), fullPage: true });

    // On a phone: the list still reads (the table scrolls in its own box).
    await writer.setViewportSize({ width: 390, height: 844 });
    await writer.goto(`${h.url}/jobs`);
    await writer.screenshot({ path: join(SHOTS, "list-phone-dark.png"), fullPage: true });
    await writer.goto(`${h.url}/jobs/stats`);
    await writer.getByRole("heading", { name: "At a glance" }).waitFor();
    await writer.screenshot({ path: join(SHOTS, "stats-phone-dark.png"), fullPage: true });
  }, 60_000);
});
