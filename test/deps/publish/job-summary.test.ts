import { describe, expect, it } from "vitest";
import type { DepsGroupResult } from "../../../src/deps/group/group-result.js";
import { renderDepsJobSummary } from "../../../src/deps/publish/job-summary.js";
import { renderDepsPullRequestBody } from "../../../src/deps/publish/pr-body.js";
import type { DepsJobResult } from "../../../src/deps/run-deps-job.js";
import type { Update } from "../../../src/deps/update.js";

function update(name: string, from: string, to: string): Update {
  return {
    name,
    from,
    to,
    type: "minor",
    locations: [
      { manifest: "package.json", section: "dependencies", spec: from, newSpec: to, from },
    ],
    links: {},
    newInstallScripts: [],
    passedOver: [],
  };
}

const TEST_OUTPUT = [
  "> fx@1.0.0 test",
  "> node --test",
  "",
  "not ok 1 - greets",
  "  TypeError: greet is not a function",
  "# fail 1",
].join("\n");

function verify(passed: boolean, outputTail: string) {
  return {
    command: "npm test",
    passed,
    exit: passed ? "0" : "1",
    timedOut: false,
    durationMs: 2_000,
    outputTail,
  };
}

const fxGreet = update("fx-greet", "1.0.0", "2.0.0");
const fxUtil = update("fx-util", "1.2.0", "1.3.0");
const failedVerify = verify(false, TEST_OUTPUT);

const failedGroup: DepsGroupResult = {
  group: { slug: "fx-greet-2", name: "fx-greet", single: true, updates: [fxGreet] },
  branch: "agent/deps/fx-greet-2",
  status: "failed",
  applied: [],
  leftOut: [{ update: fxGreet, failure: { stage: "verify", result: failedVerify } }],
  firstFailure: { stage: "verify", result: failedVerify },
  agent: { stopReason: "end_turn", summary: "", files: [], costUsd: 0.1, fixed: false },
  verify: failedVerify,
  commits: [],
  durationMs: 1,
};

function summary(groups: DepsGroupResult[]): string {
  const result: DepsJobResult = {
    status: "done",
    groups,
    deferred: [],
    declined: [],
    waiting: [],
    durationMs: 1,
  };
  return renderDepsJobSummary(result);
}

describe("the dependency run's summary", () => {
  it("shows a failed group's failing command and the last lines of its output, in plain text", () => {
    const text = summary([failedGroup]);
    expect(text).toBe(
      [
        "FAILED  Bump fx-greet from 1.0.0 to 2.0.0 -> agent/deps/fx-greet-2",
        "  left out: fx-greet 1.0.0 -> 2.0.0",
        "  agent: did not fix it (no files)",
        "  verify: npm test failed (exit 1)",
        "      > fx@1.0.0 test",
        "      > node --test",
        "      ",
        "      not ok 1 - greets",
        "        TypeError: greet is not a function",
        "      # fail 1",
      ].join("\n"),
    );
    expect(text).not.toContain("`");
  });

  it("says the agent stopped on an error, not that it did not fix it, when it never got to work", () => {
    const error =
      "Anthropic API still failing after 9 attempts (last: connection error: getaddrinfo ENOTFOUND api.anthropic.com).";
    const text = summary([
      {
        ...failedGroup,
        agent: { stopReason: "error", error, summary: "", files: [], costUsd: 0, fixed: false },
      },
    ]);
    expect(text).toContain(`  agent: stopped on an error: ${error} (no files)`);
    expect(text).not.toContain("did not fix it");
  });

  it("names a failure before the checks (the install) and keeps only the last lines", () => {
    const install = {
      ...verify(false, Array.from({ length: 40 }, (_, i) => `npm ERR! ${i}`).join("\n")),
      command: "npm ci",
    };
    const { verify: _verify, ...unverified } = failedGroup;
    const text = summary([
      {
        ...unverified,
        leftOut: [{ update: fxGreet, failure: { stage: "install", result: install } }],
        firstFailure: { stage: "install", result: install },
      },
    ]);
    const lines = text.split("\n");
    expect(lines).toContain("  install failed: npm ci (exit 1)");
    expect(lines.filter((line) => line.startsWith("      npm ERR!"))).toHaveLength(15);
    expect(lines.at(-1)).toBe("      npm ERR! 39");
  });

  it("says which network failure an install met, before its last lines", () => {
    const install = {
      ...verify(false, "npm error code SELF_SIGNED_CERT_IN_CHAIN"),
      command: "npm ci",
      networkTrouble:
        "network: the TLS certificate of registry.corp.test is not trusted (SELF_SIGNED_CERT_IN_CHAIN).",
    };
    const { verify: _verify, ...unverified } = failedGroup;
    const lines = summary([
      {
        ...unverified,
        leftOut: [{ update: fxGreet, failure: { stage: "install", result: install } }],
        firstFailure: { stage: "install", result: install },
      },
    ]).split("\n");
    const at = lines.indexOf("  install failed: npm ci (exit 1)");
    expect(lines.slice(at + 1, at + 3)).toEqual([
      `  ${install.networkTrouble}`,
      "      npm error code SELF_SIGNED_CERT_IN_CHAIN",
    ]);
  });

  it("says why a partial group left updates out", () => {
    const text = summary([
      {
        ...failedGroup,
        group: { slug: "all", name: "all", single: false, updates: [fxGreet, fxUtil] },
        branch: "agent/deps/all",
        status: "partial",
        applied: [fxUtil],
        verify: verify(true, "# pass 3"),
      },
    ]);
    expect(text).toContain("  verify: npm test passed");
    expect(text).toContain("  with the left-out updates, verify failed: npm test (exit 1)");
    expect(text).toContain("        TypeError: greet is not a function");
    expect(text).not.toContain("# pass 3");
  });

  it("says nothing of failures for a green group", () => {
    const green: DepsGroupResult = {
      ...failedGroup,
      status: "green",
      applied: [fxGreet],
      leftOut: [],
      agent: {
        stopReason: "end_turn",
        summary: "Renamed greet.",
        files: ["index.js"],
        costUsd: 0.1,
        fixed: true,
      },
      verify: verify(true, "# pass 1"),
    };
    expect(summary([green])).toBe(
      [
        "GREEN   Bump fx-greet from 1.0.0 to 2.0.0 -> agent/deps/fx-greet-2",
        "  fx-greet 1.0.0 -> 2.0.0",
        "  agent: fixed it (index.js)",
        "  verify: npm test passed",
      ].join("\n"),
    );
    // The pull request shows what broke before the fix, collapsed, after the agent's own account.
    const body = renderDepsPullRequestBody(green, { now: 0 });
    expect(body).toContain(
      "> Renamed greet.\n\n<details>\n<summary>What broke before the agent's fix (last lines)</summary>",
    );
    expect(body).toContain("TypeError: greet is not a function");
  });
});
