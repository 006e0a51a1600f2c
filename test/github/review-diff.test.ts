import { describe, expect, it } from "vitest";
import { checkComments, diffLines, linesInBoth } from "../../src/github/review-diff.js";

const PATCH = [
  "@@ -10,4 +10,5 @@ function f() {",
  " context ten",
  "-removed eleven",
  "+added eleven",
  "+added twelve",
  " context thirteen",
  " context fourteen",
  "@@ -40,2 +41,2 @@",
  " forty-one",
  "-gone",
  "+new forty-two",
  "\\ No newline at end of file",
].join("\n");

describe("diffLines", () => {
  it("maps added and context lines to the right side and removed lines to the left", () => {
    const lines = diffLines([{ filename: "a.js", patch: PATCH }, { filename: "bin.png" }]);
    expect([...(lines.right.get("a.js") ?? [])]).toEqual([10, 11, 12, 13, 14, 41, 42]);
    expect([...(lines.left.get("a.js") ?? [])]).toEqual([10, 11, 12, 13, 40, 41]);
    expect(lines.right.get("bin.png")?.size).toBe(0);
  });
});

describe("checkComments", () => {
  const lines = diffLines([{ filename: "a.js", patch: PATCH }]);

  it("keeps comments on diff lines and moves the rest to the review's text", () => {
    const { inline, outside } = checkComments(
      [
        { path: "a.js", line: 12, body: "ok" },
        { path: "a.js", line: 20, body: "between hunks" },
        { path: "b.js", line: 1, body: "not in the PR" },
        { path: "a.js", startLine: 13, line: 41, body: "spans a gap" },
        { path: "a.js", line: 11, side: "LEFT", body: "why remove?" },
      ],
      lines,
    );
    expect(inline.map((c) => [c.line, c.side])).toEqual([
      [12, "RIGHT"],
      [11, "LEFT"],
    ]);
    expect(outside.map((c) => c.body)).toEqual(["between hunks", "not in the PR", "spans a gap"]);
  });

  it("renders suggestions for right-side ranges, with a fence longer than any backticks inside", () => {
    const { inline, outside } = checkComments(
      [
        { path: "a.js", startLine: 11, line: 12, body: "Simpler:", suggestion: "const x = `a`;\n" },
        { path: "a.js", line: 11, side: "LEFT", body: "no", suggestion: "x" },
      ],
      lines,
    );
    expect(inline).toEqual([
      {
        path: "a.js",
        line: 12,
        side: "RIGHT",
        start_line: 11,
        start_side: "RIGHT",
        body: "Simpler:\n\n```suggestion\nconst x = `a`;\n```",
      },
    ]);
    expect(outside).toHaveLength(1);
  });
});

describe("linesInBoth", () => {
  it("keeps right-side lines both diffs hold, and no left side", () => {
    const pull = diffLines([
      { filename: "a.js", patch: PATCH },
      { filename: "b.js", patch: "@@ -1 +1 @@\n-x\n+y" },
    ]);
    const since = diffLines([
      { filename: "a.js", patch: "@@ -12 +12,2 @@\n-old\n+added twelve\n+thirteen" },
    ]);
    const both = linesInBoth(pull, since);
    expect([...(both.right.get("a.js") ?? [])]).toEqual([12, 13]);
    expect(both.right.get("b.js")?.size).toBe(0);
    expect(both.left.size).toBe(0);
  });
});
