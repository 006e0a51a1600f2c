import { Octokit } from "@octokit/rest";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GitHubClient } from "../../src/github/octokit.js";
import { postReview, REVIEW_MARKER } from "../../src/github/pull-review.js";

const API = "https://api.github.com";
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const octokit = () => new Octokit({ auth: "test", log: silent }) as unknown as GitHubClient;
const repo = { owner: "o", repo: "r" };
const pull = { number: 5, headSha: "b".repeat(40) };

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});
afterAll(() => nock.enableNetConnect());

const PULL_PATCH = "@@ -1,2 +1,3 @@\n a\n-b\n+B\n+c";
const comments = [
  { path: "x.js", line: 2, body: "B?", suggestion: "b2" },
  { path: "x.js", line: 3, body: "c needs a test." },
];

describe("postReview", () => {
  it("posts the review without inline comments, all in its text, when GitHub refuses an anchor (422)", async () => {
    const sent: Array<{ body: string; comments: unknown[] }> = [];
    nock(API)
      .post("/repos/o/r/pulls/5/reviews", (body) => sent.push(body) > 0)
      .reply(422, { message: "Unprocessable Entity", errors: ["Line could not be resolved"] })
      .post("/repos/o/r/pulls/5/reviews", (body) => sent.push(body) > 0)
      .reply(200, { id: 1, html_url: "https://github.com/o/r/pull/5#review-1" });
    const files = [{ filename: "x.js", patch: PULL_PATCH }];
    const posted = await postReview(octokit(), repo, pull, {
      summary: "Looks fine.",
      comments,
      scope: { files, pullFiles: files },
    });
    expect(sent.map((s) => s.comments.length)).toEqual([2, 0]);
    expect(posted.inlineRefused).toBe(true);
    expect(posted.checked.inline).toEqual([]);
    expect(posted.checked.outside).toHaveLength(2);
    const body = sent[1]?.body ?? "";
    expect(body).toContain("Looks fine.");
    expect(body).toContain("- `x.js:2`: B?");
    expect(body).toContain("```\n  b2\n  ```");
    expect(body).toContain("- `x.js:3`: c needs a test.");
    expect(body).toContain(REVIEW_MARKER);
  });

  it("does not hide other failures behind the fallback", async () => {
    nock(API).post("/repos/o/r/pulls/5/reviews").reply(403, { message: "Forbidden" });
    const files = [{ filename: "x.js", patch: PULL_PATCH }];
    await expect(
      postReview(octokit(), repo, pull, {
        summary: "s",
        comments,
        scope: { files, pullFiles: files },
      }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it("re-reviewing, anchors only on lines of the pull request's diff that also changed since", async () => {
    const sent: Array<{ body: string; comments: Array<{ line: number }> }> = [];
    nock(API)
      .post("/repos/o/r/pulls/5/reviews", (body) => sent.push(body) > 0)
      .reply(200, { id: 2, html_url: "u" });
    // Since the last review: line 3 (the PR's) and line 9 (a merged base's, not in the PR's diff).
    const since = [{ filename: "x.js", patch: "@@ -3 +3 @@\n-c0\n+c\n@@ -9 +9 @@\n-z\n+Z" }];
    const posted = await postReview(octokit(), repo, pull, {
      summary: "s",
      comments: [...comments, { path: "x.js", line: 9, body: "base line" }],
      scope: {
        files: since,
        pullFiles: [{ filename: "x.js", patch: PULL_PATCH }],
        since: "a".repeat(40),
      },
    });
    expect(sent[0]?.comments.map((c) => c.line)).toEqual([3]);
    expect(posted.checked.outside.map((c) => c.line)).toEqual([2, 9]);
    expect(sent[0]?.body).toContain("changes since `aaaaaaa`");
  });
});
