import { describe, expect, it } from "vitest";
import type { NetChange } from "../../src/agent/file-history.js";
import { formatDuration, formatUsd } from "../../src/github/markdown.js";
import { fileStats } from "../../src/report/diff-stats.js";
import type { FileStat } from "../../src/report/file-stat.js";
import { declinedPushOf, renderFinalReport } from "../../src/report/final-report.js";
import {
  type PullRequestBodyInput,
  type RunStats,
  renderPullRequestBody,
} from "../../src/report/summary.js";
import {
  renderClosedAnswer,
  renderConfigErrorAnswer,
  renderForkPatchAnswer,
  renderUnauthorizedAnswer,
} from "../../src/thread/kinds/answers.js";

const buf = (text: string) => Buffer.from(text, "utf8");

const run: RunStats = {
  usage: {
    inputTokens: 123_456,
    outputTokens: 7_890,
    cacheReadTokens: 1_000_000,
    cacheWriteTokens: 0,
  },
  costUsd: 0.01234,
  turns: 7,
  durationMs: 83_000,
  model: "claude-sonnet-5-5",
  stopReason: "end_turn",
};

const files: FileStat[] = [
  { path: "src/a.ts", additions: 10, deletions: 2, status: "modified" },
  { path: "src/new.ts", additions: 5, deletions: 0, status: "added" },
  { path: "logo.png", additions: 0, deletions: 0, status: "binary" },
];

function prInput(overrides: Partial<PullRequestBodyInput> = {}): PullRequestBodyInput {
  return {
    ...run,
    closes: 12,
    request: { login: "alice", url: "https://github.com/o/r/issues/12#issuecomment-1" },
    summary: "Fixed the off-by-one in the pager, because page 2 repeated the last row.",
    commits: [{ sha: "0123456789abcdef0123", subject: "fix(pager): off-by-one" }],
    files,
    verify: { command: "npm test", passed: true, exit: "0", outputTail: "Tests 42 passed" },
    ...overrides,
  };
}

describe("fileStats", () => {
  it("counts added and removed lines per file as git would, sorted by path", () => {
    const changes: NetChange[] = [
      { path: "z/modified.ts", before: buf("a\nb\nc\nd\n"), after: buf("a\nB\nc\nd\ne\n") },
      { path: "added.ts", before: null, after: buf("one\ntwo\nthree") },
      { path: "deleted.md", before: buf("x\ny\n"), after: null },
      { path: "img.bin", before: null, after: Buffer.from([0x89, 0x50, 0x00, 0x01]) },
    ];
    expect(fileStats(changes)).toEqual([
      { path: "added.ts", additions: 3, deletions: 0, status: "added" },
      { path: "deleted.md", additions: 0, deletions: 2, status: "deleted" },
      { path: "img.bin", additions: 0, deletions: 0, status: "binary" },
      { path: "z/modified.ts", additions: 2, deletions: 1, status: "modified" },
    ]);
  });

  it("counts a changed last line without a newline, and empty files as zero lines", () => {
    expect(
      fileStats([
        { path: "a", before: buf("x\ny"), after: buf("x\nz") },
        { path: "b", before: null, after: buf("") },
      ]),
    ).toEqual([
      { path: "a", additions: 1, deletions: 1, status: "modified" },
      { path: "b", additions: 0, deletions: 0, status: "added" },
    ]);
  });

  it("estimates large rewrites by matching lines instead of a slow exact diff", () => {
    const before = Array.from({ length: 3_000 }, (_, i) => `old ${i}`);
    const after = [...before.slice(0, 100), ...before.slice(100).map((l) => `new ${l}`)];
    const [stat] = fileStats([
      { path: "big", before: buf(before.join("\n")), after: buf(after.join("\n")) },
    ]);
    expect(stat).toEqual({ path: "big", additions: 2_900, deletions: 2_900, status: "modified" });
  });
});

describe("formatting", () => {
  it("formats money, durations", () => {
    expect(formatUsd(0.01234)).toBe("$0.0123");
    expect(formatUsd(0)).toBe("$0.0000");
    expect(formatUsd(2.5)).toBe("$2.50");
    expect(formatDuration(83_000)).toBe("1m 23s");
    expect(formatDuration(4_400)).toBe("4s");
    expect(formatDuration(3_725_000)).toBe("1h 2m");
  });
});

describe("renderPullRequestBody", () => {
  it("has the summary, Closes #N, a files table with +/- and totals, commits, verify, usage, footer", () => {
    const body = renderPullRequestBody(prInput());
    const lines = body.split("\n");
    // The model's account is quoted as its own, never as a check result.
    expect(lines.slice(0, 3)).toEqual(["The agent's summary:", "", `> ${prInput().summary}`]);
    expect(lines).toContain("Closes #12");
    expect(lines).toContain("| `src/a.ts` | +10 | −2 |");
    expect(lines).toContain("| `src/new.ts` (new) | +5 | −0 |");
    expect(lines).toContain("| `logo.png` (binary) | | |");
    expect(lines).toContain("| **3 files** | **+15** | **−2** |");
    expect(lines).toContain("- 0123456 fix(pager): off-by-one");
    expect(lines).toContain("✅ `npm test` passed");
    expect(body).toContain(
      "<summary>Output (last lines)</summary>\n\n```text\nTests 42 passed\n```",
    );
    expect(lines).toContain(
      "7 turns · 1m 23s · 123,456 tokens in, 7,890 out, 1,000,000 cache read, 0 cache write · $0.0123 · `claude-sonnet-5-5`",
    );
    expect(lines.at(-1)).toBe(
      "<sub>Made by patchwright at [@alice's request](https://github.com/o/r/issues/12#issuecomment-1).</sub>",
    );
    expect(body).not.toContain("WARNING");
  });

  it("shows the cost against the job's budget when it has one", () => {
    const body = renderPullRequestBody(prInput({ budgetUsd: 2 }));
    expect(body).toContain("· $0.0123 of $2.00 budget · `claude-sonnet-5-5`");
  });

  it("links the job's page in the footer when the App's pages are on", () => {
    const body = renderPullRequestBody(prInput({ jobPage: "https://bot.example/jobs/j-1" }));
    expect(body.split("\n").at(-1)).toBe(
      "<sub>Made by patchwright at [@alice's request](https://github.com/o/r/issues/12#issuecomment-1). · [Job page](https://bot.example/jobs/j-1)</sub>",
    );
  });

  it("reports a failing verify with its exit code and warns when the agent stopped early", () => {
    const body = renderPullRequestBody(
      prInput({
        closes: undefined,
        stopReason: "max_cost",
        verify: { command: "npm test", passed: false, exit: "1", outputTail: "1 failed" },
      }),
    );
    expect(body).toContain("❌ `npm test` failed (exit 1)");
    expect(body).toContain("stopped before finishing (cost limit reached)");
    expect(body).not.toContain("Closes #");
  });

  it("keeps a verify output with a code fence inside its block and escapes pipes in paths", () => {
    const body = renderPullRequestBody(
      prInput({
        files: [{ path: "a|b.ts", additions: 1, deletions: 0, status: "modified" }],
        verify: { command: "npm test", passed: false, exit: "1", outputTail: "```\nboom" },
      }),
    );
    expect(body).toContain("| `a\\|b.ts` | +1 | −0 |");
    expect(body).toContain("````text\n```\nboom\n````");
  });
});

describe("a drift warning (commits that had to be put right)", () => {
  it("is in the PR body and the final report, naming the files", () => {
    const body = renderPullRequestBody(prInput({ drift: ["src/sum.js", "README.md"] }));
    expect(body).toContain(
      "> The agent's recorded changes did not match the workspace it left, for `src/sum.js`, `README.md`.",
    );
    const report = renderFinalReport({
      outcome: "success",
      branch: "agent/x",
      commits: [{ sha: "abcdef0123", subject: "fix: sum" }],
      drift: ["src/sum.js"],
    });
    expect(report).toContain("> [!WARNING]");
    expect(report).toContain("`src/sum.js`");
    expect(renderPullRequestBody(prInput())).not.toContain("[!WARNING]");
  });
});

describe("renderFinalReport", () => {
  it("success with a new pull request links it and lists commits, verify and usage", () => {
    const report = renderFinalReport({
      outcome: "success",
      branch: "patchwright/issue-12",
      pullRequest: {
        number: 13,
        url: "https://github.com/o/r/pull/13",
        created: true,
        draft: true,
      },
      summary: "Fixed the pager.",
      commits: [
        { sha: "abcdef0123", subject: "fix: pager" },
        { sha: "1234567890", subject: "test: pager" },
      ],
      files,
      verify: { command: "npm test", passed: false, exit: "1", outputTail: "" },
      run,
    });
    const lines = report.split("\n");
    expect(lines[0]).toBe(
      "**🚀 Opened pull request [#13](https://github.com/o/r/pull/13) as a draft from `patchwright/issue-12`**",
    );
    expect(lines).toContain("- abcdef0 fix: pager");
    expect(lines).toContain("3 files changed (+15 −2)");
    expect(lines).toContain("❌ `npm test` failed (exit 1)");
    expect(report).toContain("$0.0123");
    // The summary lives in the new PR's body; the comment stays short.
    expect(report).not.toContain("Fixed the pager.");
  });

  it("success on an existing PR says how many commits went to which branch, with the summary", () => {
    const report = renderFinalReport({
      outcome: "success",
      branch: "feature",
      branchUrl: "https://github.com/o/r/tree/feature",
      summary: "Renamed the option.",
      commits: [{ sha: "abcdef0123", subject: "refactor: rename" }],
    });
    expect(report.split("\n")[0]).toBe(
      "**🚀 Pushed 1 commit to [`feature`](https://github.com/o/r/tree/feature)**",
    );
    expect(report).toContain("Renamed the option.");
  });

  it.each([
    ["max_cost", "cost limit of $2.00", "Raise `max_cost_usd` in `.github/patchwright.yml`"],
    ["max_turns", "all 40 turns", "Raise `max_turns` in `.github/patchwright.yml`"],
    ["timeout", "time limit of 30 minutes", "raise `max_minutes` in `.github/patchwright.yml`"],
    ["error", "model API failed", "Mention the bot again to retry."],
    ["refusal", "declined", "Rephrase the request"],
    ["aborted", "cancelled", "Mention the bot again"],
    ["setup_failed", "setup command", "Fix `setup` in `.github/patchwright.yml`"],
    ["push_failed", "pushing the branch failed", "branch protection"],
    ["workspace_failed", "could not be fetched", "branch still exists"],
    ["internal", "unexpected problem", "job log"],
  ] as const)("failure %s explains what happened and what to do", (failure, said, advice) => {
    const report = renderFinalReport({
      outcome: "failure",
      failure,
      limits: { maxCostUsd: 2, maxTurns: 40, timeoutMinutes: 30 },
    });
    expect(report).toContain(said);
    expect(report).toMatch(new RegExp(`\\*\\*What to do:\\*\\* .*${escapeRegExp(advice)}`));
    expect(report).toContain("No changes were pushed.");
  });

  it("failure says where the partial work was pushed and shows the error", () => {
    const report = renderFinalReport({
      outcome: "failure",
      failure: "error",
      error: "overloaded_error: Overloaded",
      partial: {
        branch: "patchwright/issue-12",
        commits: 2,
        pullRequest: { number: 13, url: "https://x/pull/13", created: true },
      },
      run: { ...run, stopReason: "error" },
    });
    expect(report.split("\n")[0]).toBe("**😕 The agent stopped on an error**");
    expect(report).toContain("Error: `overloaded_error: Overloaded`");
    expect(report).toContain(
      "The work done so far (2 commits) was pushed to `patchwright/issue-12` and is in [#13](https://x/pull/13), so nothing is lost.",
    );
    expect(report).toContain("7 turns · 1m 23s");
  });

  it("a declined push says plainly that the work went to a side branch", () => {
    const report = renderFinalReport({
      outcome: "failure",
      failure: "push_failed",
      error: 'the remote declined "agent/issue-12" (protected branch hook declined)',
      pushDeclined: {
        branch: "agent/issue-12",
        reason: "protected branch hook declined",
        commits: 2,
        sideBranch: "agent/issue-12-patchwright-abc1234",
        sideBranchUrl: "https://github.com/o/r/tree/agent/issue-12-patchwright-abc1234",
      },
      checks: [],
    });
    const side =
      "[`agent/issue-12-patchwright-abc1234`](https://github.com/o/r/tree/agent/issue-12-patchwright-abc1234)";
    expect(report.split("\n")[0]).toBe(
      `**😕 The push to \`agent/issue-12\` was declined; the work was pushed to ${side} instead**`,
    );
    expect(report).toContain("it said `protected branch hook declined`");
    expect(report).toContain(`The job's 2 commits went to ${side}, so nothing is lost.`);
    expect(report).toContain(`**What to do:** open a pull request from ${side} yourself`);
    expect(report).not.toContain("Patch");
  });

  it("a push declined everywhere says nothing was pushed and attaches the patch", () => {
    const patch = "diff --git a/src/add.js b/src/add.js\n-a - b\n+a + b\n";
    const report = renderFinalReport({
      outcome: "failure",
      failure: "push_failed",
      pushDeclined: { branch: "agent/issue-12", reason: "pushes are frozen", commits: 1, patch },
    });
    expect(report.split("\n")[0]).toBe(
      "**😕 The push to `agent/issue-12` was declined; nothing was pushed**",
    );
    expect(report).toContain("so no branch has the job's 1 commit.");
    expect(report).toContain("<summary>Patch (3 lines)</summary>");
    expect(report).toContain(`\`\`\`diff\n${patch}\`\`\``);
    expect(report).toContain("apply it with `git apply`");
  });

  it("a declined push is read from the job's result", () => {
    const commits = [{ sha: "a".repeat(40), subject: "fix", files: ["a.js"], turns: [1] }];
    const declined = { branch: "agent/x", reason: "frozen" };
    expect(declinedPushOf({ commits, patch: "diff" })).toBeUndefined();
    expect(declinedPushOf({ commits, pushDeclined: declined, patch: "diff" })).toEqual({
      ...declined,
      commits: 1,
      patch: "diff",
    });
    expect(
      declinedPushOf({ commits, pushDeclined: { ...declined, sideBranch: "agent/x-side" } }),
    ).toEqual({ ...declined, sideBranch: "agent/x-side", commits: 1 });
  });

  it("no changes shows the agent's answer and says nothing was committed", () => {
    const report = renderFinalReport({
      outcome: "no_changes",
      answer: "The pager is fine; the bug is in the caller.",
      run,
    });
    expect(report.startsWith("The pager is fine; the bug is in the caller.")).toBe(true);
    expect(report).toContain("No files were changed, so nothing was committed.");
  });
});

describe("renderForkPatchAnswer", () => {
  it("puts the patch in a collapsed diff block and explains git apply", () => {
    const patch = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    const answer = renderForkPatchAnswer({ patch, summary: "Changed a to b." });
    expect(answer.startsWith("Changed a to b.")).toBe(true);
    expect(answer).toContain("cannot push to branches in other people's forks");
    expect(answer).toContain(
      `<details>\n<summary>Patch (6 lines)</summary>\n\n\`\`\`diff\n${patch}\`\`\``,
    );
    expect(answer).toContain("git apply patchwright.diff");
    expect(answer).not.toContain("too long");
  });

  it("caps a long patch at a line boundary and says so", () => {
    const patch = Array.from({ length: 1000 }, (_, i) => `+line ${i}`).join("\n");
    const answer = renderForkPatchAnswer({ patch, summary: "Big.", maxPatchChars: 100 });
    const block = /```diff\n([\s\S]*?)\n```/.exec(answer)?.[1] ?? "";
    expect(block.length).toBeLessThanOrEqual(100);
    expect(block.split("\n").every((line) => /^\+line \d+$/.test(line))).toBe(true);
    expect(answer).toContain(`these are the first ${block.split("\n").length} of 1,000 lines`);
  });
});

describe("short answers", () => {
  it("are short and name the situation", () => {
    expect(renderUnauthorizedAnswer("mallory")).toBe(
      "Sorry @mallory, only people with write access to this repository can ask me to make changes.",
    );
    expect(renderClosedAnswer("issue")).toContain("This issue is closed");
    expect(renderClosedAnswer("pull_request", "locked")).toContain("This pull request is locked");
    expect(renderConfigErrorAnswer("`max_turns`: expected a number")).toContain(
      "`.github/patchwright.yml`:\n\n`max_turns`: expected a number",
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
