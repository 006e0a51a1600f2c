import { describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/agent/model/model.js";
import type { ChangeResult } from "../../src/change/change.js";
import { renderJobSummary, summarizeJob } from "../../src/cli/job-summary.js";
import { defaultConfig } from "../../src/config/schema.js";
import type { DepsGroupResult } from "../../src/deps/group/group-result.js";
import { renderDepsJobSummary } from "../../src/deps/publish/job-summary.js";
import { renderDepsPullRequestBody } from "../../src/deps/publish/pr-body.js";
import type { DepsJobResult } from "../../src/deps/run-deps-job.js";
import type { JobRequest } from "../../src/requests/request.js";
import { originOf } from "../../src/thread/origin.js";
import { finalReport, pullRequestBody } from "../../src/thread/report.js";

/**
 * What went wrong without stopping a job (the project's tool not fetched, a
 * package not put back) reached only the App's log: the thread, the CLI and
 * the Action said nothing, and a setup that then failed with `pnpm: command
 * not found` hid why. Each surface says it now, as plain text.
 */

// The repository's own output can be quoted in a warning: it must stay text.
const QUOTED = "boom\n[click](https://evil.example) @maintainers <img src=x>";
const WARNINGS = [
  "pnpm@11.18.0 through corepack cannot run here (`corepack pnpm --version`, exit 1): the job's commands use the PATH's pnpm, if any.\npnpm 11.18.0 needs Node >=22.13, and the job's commands run Node 20.20.2",
  `could not put back fx-broken: ${QUOTED}; the branch keeps the update`,
];

const job: ChangeResult = {
  branch: "agent/fix",
  baseBranch: "main",
  changes: [{ path: "a.js", before: Buffer.from("1\n"), after: Buffer.from("2\n") }],
  commits: [{ sha: "abcdef1234567", subject: "fix: a", files: ["a.js"], turns: [1] }],
  commands: [],
  push: { pushed: true, sha: "abcdef1234567", rebased: false },
  durationMs: 10,
  agent: {
    stopReason: "end_turn",
    finalText: "done",
    turnTexts: new Map(),
    turns: 1,
    usage: emptyUsage(),
    costUsd: 0,
    messages: [],
  },
  warnings: WARNINGS,
};

const request: JobRequest = {
  trigger: "issue_comment",
  deliveryId: "1-1",
  repo: { owner: "o", name: "r", cloneUrl: "x", defaultBranch: "main" },
  target: { kind: "issue", number: 3, title: "t", body: "", state: "open", locked: false },
  instruction: "@patchwright fix this",
  source: { kind: "issue_comment", id: 5 },
  requester: { login: "octocat", id: 1, type: "User" },
};

const redact = (text: string) => text.replaceAll("20.20.2", "[REDACTED]");

/** The fenced block after the heading, and what is outside it. */
function fenced(markdown: string, heading: string): { inside: string; outside: string } {
  const at = markdown.indexOf(heading);
  expect(at).toBeGreaterThan(-1);
  const open = markdown.indexOf("```text\n", at);
  const close = markdown.indexOf("\n```", open + 8);
  expect(open).toBeGreaterThan(at);
  expect(close).toBeGreaterThan(open);
  return {
    inside: markdown.slice(open + 8, close),
    outside: markdown.slice(0, open) + markdown.slice(close + 4),
  };
}

describe("a job's warnings", () => {
  it("are in the thread's final report, success or failure, as text, redacted", () => {
    const success = finalReport(job, defaultConfig(), redact).markdown;
    const { inside, outside } = fenced(success, "**Warnings**");
    expect(inside).toContain("pnpm 11.18.0 needs Node >=22.13");
    expect(inside).toContain("Node [REDACTED]");
    expect(inside).toContain("[click](https://evil.example) @maintainers");
    expect(outside).not.toContain("evil.example");

    const { push: _push, ...unpushed } = job;
    const failed = finalReport(
      {
        ...unpushed,
        commits: [],
        error: { stage: "setup", message: "setup command `pnpm install` failed (exit 127)" },
      },
      defaultConfig(),
      redact,
    ).markdown;
    expect(fenced(failed, "**Warnings**").inside).toContain("cannot run here");
    const { warnings: _none, ...quiet } = job;
    expect(finalReport(quiet, defaultConfig(), redact).markdown).not.toContain("Warnings");
  });

  it("are in the pull request's body", () => {
    const body = pullRequestBody(job, originOf(request), defaultConfig(), redact);
    const { inside, outside } = fenced(body, "**Warnings**");
    expect(inside).toContain("could not put back fx-broken");
    expect(inside).not.toContain("20.20.2");
    expect(outside).not.toContain("evil.example");
  });

  it("are in the CLI's summary, before the failure they may explain, and in its JSON", () => {
    const lines = renderJobSummary({
      ...job,
      error: { stage: "setup", message: "setup command `pnpm install` failed" },
    }).split("\n");
    const first = lines.findIndex((line) => line.startsWith("warning: pnpm@11.18.0"));
    expect(first).toBe(0);
    expect(lines.findIndex((line) => line.startsWith("failed at setup"))).toBeGreaterThan(first);
    expect(lines).toContain(`warning: could not put back fx-broken: boom`);
    expect(summarizeJob(job).warnings).toEqual(WARNINGS);
    const { warnings: _none, ...quiet } = job;
    expect(summarizeJob(quiet).warnings).toEqual([]);
  });

  it("of a dependency group are in its pull request and the job's summary", () => {
    const group: DepsGroupResult = {
      group: { slug: "fx-util-1", name: "fx-util", single: true, updates: [] },
      branch: "agent/deps/fx-util-1",
      status: "green",
      applied: [],
      leftOut: [],
      commits: [],
      durationMs: 1,
      warnings: [WARNINGS[1] ?? ""],
    };
    const body = renderDepsPullRequestBody(group, { now: 0 });
    const { inside, outside } = fenced(body, "### What did not go as planned");
    expect(inside).toContain("could not put back fx-broken");
    expect(outside).not.toContain("evil.example");
    const result: DepsJobResult = {
      status: "done",
      groups: [group],
      deferred: [],
      declined: [],
      waiting: [],
      durationMs: 1,
    };
    expect(
      renderDepsJobSummary({ ...result, warnings: ["the project wants Node 24.x (.nvmrc)"] }),
    ).toMatch(/^WARNING the project wants Node 24\.x \(\.nvmrc\)\n/);
    expect(renderDepsJobSummary(result)).toContain("  warning: could not put back fx-broken");
  });
});
