import { describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/agent/model/model.js";
import type { ChangeResult } from "../../src/change/change.js";
import { renderJobSummary, summarizeJob, toCloneUrl } from "../../src/cli/job-summary.js";

const job: ChangeResult = {
  branch: "agent/fix",
  baseBranch: "main",
  changes: [{ path: "a.ts", before: Buffer.from("1\n2\n"), after: Buffer.from("1\n3\n4\n") }],
  commits: [{ sha: "abcdef1234567", subject: "fix: a", files: ["a.ts"], turns: [1] }],
  commands: [],
  verify: {
    command: "npm test",
    passed: false,
    exit: "1",
    timedOut: false,
    durationMs: 5,
    outputTail: "boom",
  },
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
};

describe("CLI job summary", () => {
  it("turns paths into file:// URLs and leaves URLs alone", () => {
    expect(toCloneUrl("../repo", "/home/me/work")).toBe("file:///home/me/repo");
    expect(toCloneUrl("/srv/r.git", "/x")).toBe("file:///srv/r.git");
    for (const url of [
      "https://github.com/o/r.git",
      "file:///srv/r.git",
      "git@github.com:o/r.git",
      "ssh://git@h/r",
    ]) {
      expect(toCloneUrl(url, "/x")).toBe(url);
    }
  });

  it("says where the work went, the commits, the files with +/- and the verify result", () => {
    const text = renderJobSummary(job);
    expect(text.split("\n")).toEqual([
      "pushed 1 commit to agent/fix (abcdef1)",
      "  abcdef1 fix: a",
      "files:",
      "  a.ts +2 -1",
      "the agent ran no tests, linters, type checks or builds itself",
      "verify: npm test failed (exit 1)",
      "      boom",
    ]);
    const two = {
      ...job,
      commits: [
        ...job.commits,
        { sha: "1234567abc", subject: "test: a", files: ["a.ts"], turns: [2] },
      ],
    };
    expect(renderJobSummary(two).split("\n")[0]).toBe("pushed 2 commits to agent/fix (abcdef1)");
    expect(summarizeJob(job)).toMatchObject({
      pushed: true,
      files: [{ path: "a.ts", additions: 2, deletions: 1 }],
    });
    expect(renderJobSummary({ ...job, drift: ["a.ts"] })).toContain(
      "warning: the per-turn commits missed the workspace's changes to a.ts; the last commit puts them right",
    );
    const { push: _push, verify: _verify, ...rest } = job;
    expect(renderJobSummary({ ...rest, commits: [], changes: [] })).toBe("no changes were made");
  });

  it("lists the checks the agent ran, in order, with exit codes and the last lines of failures", () => {
    const mochaOutput = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
    const { verify: _verify, ...unverified } = job;
    const text = renderJobSummary({
      ...unverified,
      commands: [
        {
          command: "npx mocha test/a.js",
          exit: "1",
          passed: false,
          durationMs: 1,
          outputTail: mochaOutput,
        },
        { command: "git diff", exit: "0", passed: true, durationMs: 1, outputTail: "diff" },
        { command: "npm run lint", exit: "1", passed: false, durationMs: 1, outputTail: "1 error" },
        {
          command: "npx mocha test/a.js",
          exit: "0",
          passed: true,
          durationMs: 1,
          outputTail: "ok",
        },
      ],
    });
    const lines = text.split("\n");
    expect(lines.slice(lines.indexOf("checks the agent ran:"))).toEqual([
      "checks the agent ran:",
      "  ❌ npx mocha test/a.js: exit 1",
      ...Array.from({ length: 10 }, (_, i) => `      line ${i + 11}`),
      "  ❌ npm run lint: exit 1",
      "      1 error",
      "  ✅ npx mocha test/a.js: exit 0",
      "verify: none ran after the agent",
    ]);
    expect(summarizeJob({ ...job, commands: [] }).checks).toEqual([]);
  });

  it("says plainly when nothing was run to check a change", () => {
    const { verify: _verify, ...rest } = job;
    expect(
      renderJobSummary({ ...rest, commands: [] })
        .split("\n")
        .at(-1),
    ).toBe(
      "nothing was run to check the change: the agent ran no tests, linters, type checks or builds, and no verify command ran",
    );
  });
});
