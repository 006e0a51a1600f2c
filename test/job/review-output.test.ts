import { describe, expect, it } from "vitest";
import { parseReview } from "../../src/job/review-output.js";

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

  it("is all summary without a block", () => {
    expect(parseReview(" Fine. ")).toEqual({ summary: "Fine.", comments: [] });
  });
});
