import { describe, expect, it } from "vitest";
import { parseReview } from "../../../src/thread/kinds/review-output.js";

describe("parseReview", () => {
  it("splits the summary from the inline comments", () => {
    const parsed = parseReview(
      'Looks good.\n\n```review-comments\n[{"path": "./src/a.js", "line": 3, "body": "nit", "suggestion": "x"}, {"path": "b.js", "start_line": 1, "line": 2, "body": "ok"}, {"line": "x"}]\n```\nThanks!',
    );
    expect(parsed.summary).toBe("Looks good.\n\n\nThanks!");
    expect(parsed.comments).toEqual([
      { path: "src/a.js", line: 3, body: "nit", suggestion: "x" },
      { path: "b.js", startLine: 1, line: 2, body: "ok" },
    ]);
    expect(parsed.problem).toBeUndefined();
  });

  it("keeps everything as the summary when the block cannot be read, saying why", () => {
    const text = "Summary\n```review-comments\n[{oops\n```";
    const parsed = parseReview(text);
    expect(parsed.summary).toBe(text);
    expect(parsed.comments).toEqual([]);
    expect(parsed.problem).toMatch(/not JSON/);
  });

  it("takes the same comments from a json block, as a list or under comments", () => {
    const list = parseReview(
      'Summary.\n\n```json\n[{"path": "a.js", "line": 2, "body": "x"}]\n```',
    );
    expect(list).toEqual({ summary: "Summary.", comments: [{ path: "a.js", line: 2, body: "x" }] });
    const wrapped = parseReview(
      'Summary.\n```json\n{"comments": [{"path": "a.js", "start_line": 1, "line": 2, "body": "y"}]}\n```',
    );
    expect(wrapped.comments).toEqual([{ path: "a.js", startLine: 1, line: 2, body: "y" }]);
  });

  it("leaves a json block that holds no comments in the summary", () => {
    const text = 'Use this config:\n```json\n{"strict": true}\n```';
    expect(parseReview(text)).toEqual({ summary: text, comments: [] });
  });

  it("is all summary without a block", () => {
    expect(parseReview(" Fine. ")).toEqual({ summary: "Fine.", comments: [] });
  });
});
