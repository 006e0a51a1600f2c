import { describe, expect, it } from "vitest";
import type { CommandRecord } from "../../src/agent/command-log.js";
import type { AgentResult } from "../../src/agent/loop.js";
import { emptyUsage } from "../../src/agent/model/model.js";
import type { ChangeResult } from "../../src/change/change.js";
import { defaultConfig } from "../../src/config/schema.js";
import { checksRun } from "../../src/report/checks.js";
import { renderFinalReport } from "../../src/report/final-report.js";
import { renderPullRequestBody } from "../../src/report/summary.js";
import type { JobRequest } from "../../src/requests/request.js";
import { originOf } from "../../src/thread/origin.js";
import { finalReport, opensAsDraft, pullRequestBody } from "../../src/thread/report.js";

/** What the PR and the tracking comment say was run: the tool log, never the model's word. */

const MOCHA_FAILURE = [
  "exit code: 1",
  "stdout:",
  "  res",
  "    .redirect(url)",
  "      1) should encode the url",
  "  0 passing (12ms)",
  "  1 failing",
].join("\n");

const LINT_FAILURE = [
  "exit code: 1",
  "stdout:",
  "/work/lib/response.js",
  "  812:5  error  'encodeurl' is assigned a value but never used  no-unused-vars",
  "✖ 1 problem (1 error, 0 warnings)",
].join("\n");

function record(command: string, exit: string, outputTail = `exit code: ${exit}`): CommandRecord {
  return { command, exit, passed: exit === "0", durationMs: 1_000, outputTail };
}

/** The express trial: both checks failed, and the model said they passed. */
const expressCommands: CommandRecord[] = [
  record("ls lib", "0"),
  record("cat lib/response.js", "0"),
  record("npx mocha test/res.redirect.js", "1", MOCHA_FAILURE),
  record("npm run lint", "1", LINT_FAILURE),
  record("git status", "0"),
];
const CLAIM = "Encoded the redirect URL in res.redirect(). Tests pass; lint is clean.";

const agent: AgentResult = {
  stopReason: "end_turn",
  finalText: CLAIM,
  turnTexts: new Map(),
  turns: 9,
  usage: emptyUsage(),
  costUsd: 0.1,
  messages: [],
};

const job: ChangeResult = {
  branch: "patchwright/issue-12-redirect",
  baseBranch: "master",
  changes: [{ path: "lib/response.js", before: Buffer.from("a\n"), after: Buffer.from("b\n") }],
  commits: [
    { sha: "abcdef1234567", subject: "fix: encode", files: ["lib/response.js"], turns: [1] },
  ],
  commands: expressCommands,
  push: { pushed: true, sha: "abcdef1234567", rebased: false },
  durationMs: 60_000,
  agent,
};

const request: JobRequest = {
  trigger: "issue_comment",
  deliveryId: "1-1",
  repo: { owner: "expressjs", name: "express", cloneUrl: "x", defaultBranch: "master" },
  target: { kind: "issue", number: 12, title: "t", body: "", state: "open", locked: false },
  instruction: "@patchwright fix this",
  source: { kind: "issue_comment", id: 5 },
  requester: { login: "octocat", id: 1, type: "User" },
};

const same = (text: string) => text;

function checksSection(body: string): string {
  const start = body.indexOf("### Checks");
  expect(start).toBeGreaterThan(-1);
  const end = body.indexOf("\n### ", start + 1);
  return body.slice(start, end < 0 ? undefined : end);
}

describe("what the pull request says was run", () => {
  it("lists the agent's failed checks with their exit codes and output, and quotes its claim as its own", () => {
    const body = pullRequestBody(job, originOf(request), defaultConfig(), same);
    expect(body.startsWith(`The agent's summary:\n\n> ${CLAIM}`)).toBe(true);
    const checks = checksSection(body);
    expect(checks).toContain(
      [
        "**Run by the agent**, in order:",
        "",
        "- ❌ `npx mocha test/res.redirect.js` — exit 1",
        "- ❌ `npm run lint` — exit 1",
      ].join("\n"),
    );
    expect(checks).toContain(
      "<summary>Output of npm run lint (exit 1, last lines)</summary>\n\n```text\nexit code: 1",
    );
    expect(checks).toContain("✖ 1 problem (1 error, 0 warnings)");
    expect(checks).toContain("1 failing");
    expect(checks).toContain("No `verify` command ran after the agent.");
    // The model's words never stand where the results do; other commands are not checks.
    expect(checks).not.toContain("Tests pass");
    expect(checks).not.toMatch(/git status|cat lib/);
  });

  it("says plainly that nothing was run when the agent ran no check and no verify ran", () => {
    const quiet = { ...job, commands: [record("cat lib/response.js", "0")] };
    const body = pullRequestBody(quiet, originOf(request), defaultConfig(), same);
    expect(checksSection(body)).toContain(
      "⚠️ **Nothing was run to check this change:** the agent ran no tests, linters, type checks or builds, and no `verify` command ran.",
    );
    const report = finalReport(quiet, defaultConfig(), same);
    expect(report.markdown).toContain("**Nothing was run to check this change:**");
  });

  it("puts the verify result after the agent's checks", () => {
    const verify = {
      command: "npm test",
      passed: false,
      exit: "1",
      timedOut: false,
      durationMs: 5,
      outputTail: "  3 failing",
    };
    const body = pullRequestBody({ ...job, verify }, originOf(request), defaultConfig(), same);
    const checks = checksSection(body);
    expect(
      checks.indexOf("**Verify**, the configured command, run after the agent:"),
    ).toBeGreaterThan(checks.indexOf("`npm run lint` — exit 1"));
    expect(checks).toContain("❌ `npm test` failed (exit 1)");
    expect(checks).toContain("```text\n  3 failing\n```");
    expect(checks).not.toContain("No `verify` command ran");

    const noAgentChecks = pullRequestBody(
      { ...job, verify: { ...verify, passed: true, exit: "0" }, commands: [] },
      originOf(request),
      defaultConfig(),
      same,
    );
    expect(checksSection(noAgentChecks)).toContain(
      "The agent ran no tests, linters, type checks or builds itself.",
    );
    expect(noAgentChecks).not.toContain("Nothing was run");
  });

  it("shows every run of a command, so a failure before a pass stays visible", () => {
    const body = renderPullRequestBody({
      usage: emptyUsage(),
      costUsd: 0,
      turns: 1,
      durationMs: 1,
      model: "m",
      stopReason: "end_turn",
      request: { login: "alice" },
      summary: "Fixed it; all tests pass.",
      commits: [],
      files: [],
      checks: checksRun([
        record("npx mocha test/res.redirect.js", "1", MOCHA_FAILURE),
        record("npx mocha test/res.redirect.js", "0", "exit code: 0\n  1 passing"),
        record("npm test 2>&1 | tail -5", "0", "exit code: 0\n  2 failing"),
        record("npm run build", "denied", "Denied by policy: network"),
      ]),
    });
    const checks = checksSection(body);
    expect(checks).toContain(
      [
        "- ❌ `npx mocha test/res.redirect.js` — exit 1",
        "- ✅ `npx mocha test/res.redirect.js` — exit 0",
        "- ⚠️ `npm test 2>&1 | tail -5` — exit 0, but from a command after it on the line, not its own",
        "- 🚫 `npm run build` — denied by the policy, so it did not run",
      ].join("\n"),
    );
    // The failure's output and the piped run's output (its status says nothing).
    expect(checks).toContain("Output of npx mocha test/res.redirect.js (exit 1, last lines)");
    expect(checks).toContain("Output of npm test 2&gt;&amp;1 | tail -5 (exit 0, last lines)");
    expect(checks).not.toContain("Denied by policy");
  });

  it("caps the list and the outputs, saying how many earlier runs failed", () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      record(`npx jest test/case-${i}.test.js`, i % 2 === 0 ? "1" : "0", "x\n".repeat(2_000)),
    );
    const body = renderPullRequestBody({
      usage: emptyUsage(),
      costUsd: 0,
      turns: 1,
      durationMs: 1,
      model: "m",
      stopReason: "end_turn",
      request: { login: "alice" },
      summary: "",
      commits: [],
      files: [],
      checks: checksRun(many),
    });
    const checks = checksSection(body);
    expect(checks).toContain("- _10 earlier runs not listed, 5 of them failed_");
    expect(checks.match(/^- [✅❌]/gmu)).toHaveLength(30);
    expect(checks.match(/<details>/g)).toHaveLength(3);
    expect(checks.length).toBeLessThan(10_000);
  });
});

describe("what the tracking comment says was run", () => {
  it("lists the checks in the final report of a success and of a failure with work pushed", () => {
    const success = finalReport(job, defaultConfig(), same).markdown;
    expect(success).toContain("- ❌ `npm run lint` — exit 1");
    expect(success).toContain("<summary>Output of npm run lint (exit 1, last lines)</summary>");
    // Pushed onto an existing branch: the summary is here, quoted as the agent's.
    expect(success).toContain(`The agent's summary:\n\n> ${CLAIM}`);

    const stopped = finalReport(
      { ...job, agent: { ...agent, stopReason: "max_turns" }, commands: [] },
      defaultConfig(),
      same,
    ).markdown;
    expect(stopped).toContain("**Nothing was run to check this change:**");
  });

  it("does not speak of checks when a job failed before any work", () => {
    const report = renderFinalReport({ outcome: "failure", failure: "setup_failed", checks: [] });
    expect(report).not.toContain("Nothing was run");
  });
});

describe("opensAsDraft", () => {
  it("opens the PR as a draft when the last run of a check the agent ran failed, even with no verify", () => {
    const config = defaultConfig();
    const { verify: _verify, ...quiet } = job;
    expect(opensAsDraft(quiet, config)).toBe(true);
    const fixed = {
      ...quiet,
      commands: [
        ...expressCommands,
        record("npx mocha test/res.redirect.js", "0"),
        record("npm run lint", "0"),
      ],
    };
    expect(opensAsDraft(fixed, config)).toBe(false);
    expect(opensAsDraft(quiet, { ...config, draftOnFailure: false })).toBe(false);
  });
});
