import { describe, expect, it } from "vitest";
import {
  anchorProblem,
  checkComments,
  diffLines,
  linesInBoth,
} from "../../src/github/review-diff.js";

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

describe("anchorProblem", () => {
  const files = [{ filename: "a.js", patch: PATCH }, { filename: "logo.png" }];
  const lines = diffLines(files);
  const problem = (comment: Parameters<typeof anchorProblem>[0]) =>
    anchorProblem(comment, files, lines);

  it("accepts a line or a range inside one hunk, on either side", () => {
    expect(problem({ path: "a.js", line: 12, body: "x" })).toBeNull();
    expect(problem({ path: "a.js", startLine: 10, line: 14, body: "x" })).toBeNull();
    expect(problem({ path: "a.js", line: 40, side: "LEFT", body: "x" })).toBeNull();
  });

  it("names the file's hunks and the lines each allows when a line is outside them", () => {
    expect(problem({ path: "a.js", line: 20, body: "x" })).toBe(
      "line 20 of a.js (side RIGHT, the new file) is not a line of the diff. Its hunks: @@ -10,4 +10,5 @@ (new lines 10-14); @@ -40,2 +41,2 @@ (new lines 41-42). Move the comment onto new lines listed there (for code near a change, the closest changed or context line), or say it in your summary",
    );
    expect(problem({ path: "a.js", startLine: 13, line: 41, body: "x" })).toMatch(
      /^lines 13-41 of a\.js .* are not all lines of one hunk/,
    );
    expect(problem({ path: "a.js", line: 14, side: "LEFT", body: "x" })).toMatch(
      /old lines 10-13\); @@ -40,2 \+41,2 @@ \(old lines 40-41\)/,
    );
  });

  it("names the files of the diff, a file without a patch, and a suggestion on the old side", () => {
    expect(problem({ path: "b.js", line: 1, body: "x" })).toMatch(
      /^b\.js is not in this pull request's diff.*Files in the diff: a\.js, logo\.png/,
    );
    expect(problem({ path: "logo.png", line: 1, body: "x" })).toMatch(/no diff GitHub can show/);
    expect(problem({ path: "a.js", line: 11, side: "LEFT", body: "x", suggestion: "y" })).toMatch(
      /use side RIGHT/,
    );
    expect(problem({ path: "a.js", startLine: 12, line: 11, body: "x" })).toMatch(
      /start_line 12 is after line 11/,
    );
  });

  it("allows only the lines a re-review may use", () => {
    const since = linesInBoth(
      lines,
      diffLines([{ filename: "a.js", patch: "@@ -12 +12 @@\n-o\n+n" }]),
    );
    expect(anchorProblem({ path: "a.js", line: 12, body: "x" }, files, since)).toBeNull();
    expect(anchorProblem({ path: "a.js", line: 11, body: "x" }, files, since)).toMatch(
      /@@ -10,4 \+10,5 @@ \(new lines 12\); @@ -40,2 \+41,2 @@ \(new lines none you may use here\)/,
    );
  });
});
