import { describe, expect, it } from "vitest";
import { reportOf } from "../../src/action/outcome-report.js";
import {
  type ActionReport,
  actionOutputs,
  OUTPUT_NAMES,
  renderStepSummary,
} from "../../src/action/step-summary.js";
import { emptyUsage } from "../../src/agent/model/model.js";
import type { ChangeResult } from "../../src/change/change.js";
import { defaultConfig } from "../../src/config/schema.js";

const DONE: ActionReport = {
  conclusion: "success",
  headline: "opened pull request #100",
  branch: "agent/issue-7-fix",
  pullRequest: { number: 100, url: "https://github.com/o/r/pull/100" },
  files: [
    { path: "src/a.ts", additions: 3, deletions: 1, status: "modified" },
    { path: "src/b.ts", additions: 10, deletions: 0, status: "added" },
  ],
  verify: {
    command: "npm test",
    passed: false,
    exit: "1",
    timedOut: false,
    durationMs: 10,
    outputTail: "1 failing",
  },
  turns: 4,
  usage: { inputTokens: 12_345, outputTokens: 678, cacheReadTokens: 9_000, cacheWriteTokens: 0 },
  costUsd: 0.123456,
  transcriptPath: "/runner/_temp/patchwright/transcript-1-1.jsonl",
  details: "**🚀 Opened pull request**",
};

describe("actionOutputs", () => {
  it("sets every output, empty when the run has no value for it", () => {
    expect(actionOutputs(DONE)).toEqual({
      conclusion: "success",
      branch: "agent/issue-7-fix",
      pr_number: "100",
      pr_url: "https://github.com/o/r/pull/100",
      cost_usd: "0.1235",
      turns: "4",
      transcript_path: "/runner/_temp/patchwright/transcript-1-1.jsonl",
    });
    const skipped = actionOutputs({ conclusion: "skipped", headline: "not for us" });
    expect(Object.keys(skipped)).toEqual([...OUTPUT_NAMES]);
    expect(skipped).toMatchObject({ conclusion: "skipped", branch: "", pr_number: "", turns: "" });
  });
});

describe("renderStepSummary", () => {
  it("links the job's page attached to the run, or names its file", () => {
    const attached = renderStepSummary({
      ...DONE,
      jobView: { path: "/t/job-1.html", url: "https://github.com/o/r/actions/runs/1/artifacts/9" },
    });
    expect(attached).toContain(
      "[The job's page](https://github.com/o/r/actions/runs/1/artifacts/9) (an HTML file attached to this run)",
    );
    const local = renderStepSummary({ ...DONE, jobView: { path: "/t/job-1.html" } });
    expect(local).toContain(
      "The job's page: `/t/job-1.html` (upload it with actions/upload-artifact)",
    );
  });

  it("puts branch, PR, files, verify, turns, tokens and cost in a table, the report below", () => {
    const summary = renderStepSummary(DONE);
    expect(summary).toContain("### 🚀 patchwright: opened pull request #100");
    expect(summary).toContain("| Branch | `agent/issue-7-fix` |");
    expect(summary).toContain("| Pull request | [#100](https://github.com/o/r/pull/100) |");
    expect(summary).toContain("| Files | 2 files (+13 −1) |");
    expect(summary).toContain("| Verify | ❌ `npm test` failed (exit 1) |");
    expect(summary).toContain("| Turns | 4 |");
    expect(summary).toContain("| Tokens | 12,345 in, 678 out, 9,000 cache read |");
    expect(summary).toContain("| Cost | $0.1235 |");
    expect(summary.indexOf("**🚀 Opened pull request**")).toBeGreaterThan(
      summary.indexOf("| Cost"),
    );
    expect(summary).toContain("`/runner/_temp/patchwright/transcript-1-1.jsonl`");
  });

  it("shows a skip's reason without an empty table", () => {
    const summary = renderStepSummary({
      conclusion: "skipped",
      headline: "Pull request #3 comes from a | fork.",
    });
    expect(summary).toBe("### ⏭️ patchwright: Pull request #3 comes from a \\| fork.\n");
  });
});

describe("the checks in the step summary", () => {
  const job: ChangeResult = {
    branch: "patchwright/issue-3",
    baseBranch: "main",
    changes: [{ path: "lib/a.js", before: Buffer.from("a\n"), after: Buffer.from("b\n") }],
    commits: [
      { sha: "abcdef1234567", subject: "fix: a", files: ["lib/a.js"], turns: [1] },
      { sha: "1234567abcdef", subject: "test: a", files: ["lib/a.js"], turns: [2] },
    ],
    commands: [
      {
        command: "npx mocha test/a.js",
        exit: "1",
        passed: false,
        durationMs: 1,
        outputTail: "exit code: 1\n  1 failing\n  AssertionError: sk-live-SECRET",
      },
      { command: "ls", exit: "0", passed: true, durationMs: 1, outputTail: "a.js" },
      { command: "npm run lint", exit: "0", passed: true, durationMs: 1, outputTail: "ok" },
    ],
    push: { pushed: true, sha: "1234567abcdef", rebased: false },
    durationMs: 1,
    agent: {
      stopReason: "end_turn",
      finalText: "Fixed a; the tests pass.",
      turnTexts: new Map(),
      turns: 2,
      usage: emptyUsage(),
      costUsd: 0,
      messages: [],
    },
  };
  const redact = (text: string) => text.replaceAll("sk-live-SECRET", "[redacted]");

  it("lists the agent's checks with their status, and the failures' last lines below", () => {
    const report = reportOf({ job, conclusion: "success" }, defaultConfig(), redact, "/t.jsonl");
    expect(report.headline).toBe("pushed 2 commits to patchwright/issue-3");
    const summary = renderStepSummary(report);
    expect(summary).toContain(
      "| Checks run by the agent | ❌ `npx mocha test/a.js` exit 1<br>✅ `npm run lint` exit 0 |",
    );
    expect(summary).toContain("| Verify | not run |");
    expect(summary).toContain(
      "<summary>Output of npx mocha test/a.js (exit 1, last lines)</summary>",
    );
    expect(summary).toContain("AssertionError: [redacted]");
    expect(summary).not.toContain("sk-live-SECRET");
  });

  it("says when nothing was run to check a change", () => {
    const quiet = { ...job, commands: [] };
    const summary = renderStepSummary(
      reportOf({ job: quiet, conclusion: "success" }, defaultConfig(), redact, "/t.jsonl"),
    );
    expect(summary).toContain(
      "| Checks run by the agent | ⚠️ nothing was run to check the change |",
    );
  });
});
