import { describe, expect, it } from "vitest";
import { createRedactor, redactValue } from "../../src/agent/redact.js";
import { escapeHtml, html, htmlText } from "../../src/pages/html.js";
import { renderEvent } from "../../src/pages/render/event.js";
import { renderRows } from "../../src/pages/render/list.js";
import { jobPageUrl, parsePagesEnv } from "../../src/pages/settings.js";
import { computeStats } from "../../src/pages/stats.js";
import type { JobSummary, ViewEvent } from "../../src/service/jobs-view/types.js";

const job = (over: Partial<JobSummary>): JobSummary => ({
  id: "j",
  kind: "request",
  repo: { owner: "acme", name: "app" },
  state: "done",
  createdAt: 0,
  links: {},
  ...over,
});

describe("rendering", () => {
  it("escapes every interpolated value, and keeps nested html as markup", () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
    const evil = `"><script>alert(1)</script>`;
    expect(htmlText(html`<p title="${evil}">${evil}${html`<b>ok</b>`}</p>`)).toBe(
      `<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;<b>ok</b></p>`,
    );
  });

  it("shows every kind of event as text, redacted before it is stored", () => {
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const redact = createRedactor(["hunter2-known-secret"]);
    const events: ViewEvent[] = [
      { at: 0, type: "text", turn: 1, text: `<img src=x onerror=alert(1)> ${token}` },
      { at: 0, type: "tool_call", turn: 1, id: "1", name: "<b>", input: "hunter2-known-secret" },
      {
        at: 0,
        type: "tool_result",
        turn: 1,
        id: "1",
        name: "edit",
        isError: false,
        tail: "--- a\n+++ b\n@@\n-<old>\n+<new>",
      },
      { at: 0, type: "denied", turn: 1, name: "bash", reason: "<i>no</i>" },
      { at: 0, type: "report", outcome: "success", markdown: "# T\n<script>x</script>" },
      { at: 0, type: "step", text: "<s>", note: "<n>" },
      { at: 0, type: "warning", text: "<w>" },
      { at: 0, type: "state", state: "failed", by: "<by>", message: "<m>" },
      { at: 0, type: "usage", turn: 1, costUsd: 0.5, inputTokens: 1, outputTokens: 2 },
      { at: 0, type: "checkpoint", sha: "<sha>" },
      { at: 0, type: "pushed", branch: "<br>" },
    ];
    const out = events
      .map((event, i) => htmlText(renderEvent(redactValue(event, redact) as ViewEvent, i)))
      .join("");
    expect(out).not.toContain(token);
    expect(out).not.toContain("hunter2-known-secret");
    expect(out).toContain("[redacted");
    expect(out).not.toMatch(/<(img|script|i|s|w|n|m|by|sha|br|b)[ >]/);
    expect(out).toContain('<span class="add">+&lt;new&gt;</span>');
  });

  it("links only to http(s)", () => {
    const rows = htmlText(
      renderRows({
        query: {},
        now: 0,
        refreshMs: 1000,
        jobs: [
          job({
            triggerUrl: "javascript:alert(1)",
            links: { pullRequest: "https://github.com/a/b/pull/1" },
          }),
        ],
      }),
    );
    expect(rows).not.toContain("javascript:");
    expect(rows).toContain('href="https://github.com/a/b/pull/1"');
  });
});

describe("page settings", () => {
  const full = {
    GITHUB_CLIENT_ID: "Iv1.x",
    GITHUB_CLIENT_SECRET: "s3cret",
    PATCHWRIGHT_PUBLIC_URL: "https://bot.example.com/",
    PATCHWRIGHT_ADMINS: " Boss, ops ,",
    WEBHOOK_SECRET: "w",
  };

  it("are off without the OAuth client or the public URL, naming what is missing", () => {
    expect(parsePagesEnv({}, undefined)).toEqual({
      on: false,
      missing: ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET", "PATCHWRIGHT_PUBLIC_URL"],
    });
    expect(parsePagesEnv({ ...full, PATCHWRIGHT_PUBLIC_URL: "" }, undefined)).toEqual({
      on: false,
      missing: ["PATCHWRIGHT_PUBLIC_URL"],
    });
  });

  it("are on with them; admins lower case; the session secret derived and stable", () => {
    const a = parsePagesEnv(full, undefined);
    const b = parsePagesEnv(full, "https://ghe.example.com/api/v3");
    if (!a.on || !b.on) throw new Error("expected on");
    expect(a.settings.admins).toEqual(new Set(["boss", "ops"]));
    expect(a.settings.publicUrl).toBe("https://bot.example.com");
    expect(a.settings.apiBaseUrl).toBe("https://api.github.com");
    expect(b.settings.apiBaseUrl).toBe("https://ghe.example.com/api/v3");
    expect(a.settings.sessionSecret.equals(b.settings.sessionSecret)).toBe(true);
    expect(a.settings.sessionSecret.toString("utf8")).not.toContain("s3cret");
    const other = parsePagesEnv({ ...full, WEBHOOK_SECRET: "other" }, undefined);
    if (!other.on) throw new Error("expected on");
    expect(other.settings.sessionSecret.equals(a.settings.sessionSecret)).toBe(false);
  });

  it("give the job page links only while the pages are on", () => {
    expect(jobPageUrl(parsePagesEnv({}, undefined))).toBeUndefined();
    const link = jobPageUrl(parsePagesEnv(full, undefined));
    expect(link?.("job 1/2")).toBe("https://bot.example.com/jobs/job%201%2F2");
  });

  it("refuse to start on a malformed value, naming it", () => {
    expect(() =>
      parsePagesEnv({ ...full, PATCHWRIGHT_PUBLIC_URL: "bot.example.com" }, undefined),
    ).toThrow(/PATCHWRIGHT_PUBLIC_URL/);
    expect(() =>
      parsePagesEnv({ ...full, PATCHWRIGHT_SESSION_SECRET: "short" }, undefined),
    ).toThrow(/PATCHWRIGHT_SESSION_SECRET/);
  });
});

describe("stats", () => {
  it("counts jobs, success, median run time, tokens and cost over 7 and 30 days", () => {
    const day = 24 * 60 * 60 * 1000;
    const now = 100 * day;
    const jobs = [
      job({
        id: "a",
        createdAt: now - day,
        startedAt: now - day,
        finishedAt: now - day + 60_000,
        tokens: 10,
        costUsd: 1,
      }),
      job({
        id: "b",
        createdAt: now - 2 * day,
        state: "failed",
        startedAt: now - 2 * day,
        finishedAt: now - 2 * day + 180_000,
        costUsd: 2,
      }),
      job({
        id: "c",
        createdAt: now - 10 * day,
        repo: { owner: "o", name: "x" },
        startedAt: 0,
        finishedAt: 120_000,
        costUsd: 4,
      }),
      job({ id: "d", createdAt: now - 40 * day, costUsd: 100 }),
      job({ id: "e", createdAt: now - day, state: "done", cancelledBy: "wes" }),
    ];
    const stats = computeStats(jobs, now);
    expect(stats.total.week.jobs).toBe(3);
    expect(stats.total.week.successRate).toBeCloseTo(1 / 3);
    expect(stats.total.week.medianRunMs).toBe(120_000);
    expect(stats.total.month.jobs).toBe(4);
    expect(stats.total.month.costUsd).toBe(7);
    expect(stats.total.week.tokens).toBe(10);
    expect(stats.repos.map((r) => r.repo)).toEqual(["o/x", "acme/app"]);
    expect(stats.days).toHaveLength(30);
    expect(stats.days.reduce((sum, d) => sum + d.jobs, 0)).toBe(4);
  });
});
