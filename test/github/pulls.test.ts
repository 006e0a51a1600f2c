import { Octokit } from "@octokit/rest";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { findPullRequestForBranch, openOrUpdatePullRequest } from "../../src/github/pulls.js";

const API = "https://api.github.com";
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const octokit = () => new Octokit({ auth: "test", log: silent });

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});
afterAll(() => nock.enableNetConnect());

const params = {
  owner: "o",
  repo: "r",
  head: "patchwright/issue-12",
  base: "main",
  title: "Fix the pager",
  body: "Closes #12",
  draft: true,
};

const pull = (number: number, draft: boolean) => ({
  number,
  html_url: `https://github.com/o/r/pull/${number}`,
  title: "t",
  draft,
  base: { ref: "main" },
});

function listOpen(result: object[]) {
  return nock(API)
    .get("/repos/o/r/pulls")
    .query({ head: "o:patchwright/issue-12", state: "open", per_page: "10" })
    .reply(200, result);
}

describe("openOrUpdatePullRequest", () => {
  it("opens a draft pull request when none is open for the branch", async () => {
    listOpen([]);
    const sent: unknown[] = [];
    nock(API)
      .post("/repos/o/r/pulls", (body) => sent.push(body) > 0)
      .reply(201, pull(13, true));
    const result = await openOrUpdatePullRequest(octokit(), params);
    expect(result).toEqual({
      number: 13,
      url: "https://github.com/o/r/pull/13",
      created: true,
      draft: true,
    });
    expect(sent).toEqual([
      {
        head: "patchwright/issue-12",
        base: "main",
        title: "Fix the pager",
        body: "Closes #12",
        draft: true,
      },
    ]);
  });

  it("updates the title and body of the pull request already open for the branch", async () => {
    listOpen([pull(9, false)]);
    const sent: unknown[] = [];
    nock(API)
      .patch("/repos/o/r/pulls/9", (body) => sent.push(body) > 0)
      .reply(200, pull(9, false));
    const result = await openOrUpdatePullRequest(octokit(), params);
    expect(result).toEqual({
      number: 9,
      url: "https://github.com/o/r/pull/9",
      created: false,
      draft: false,
    });
    // The draft state is the maintainer's once the PR exists.
    expect(sent).toEqual([{ title: "Fix the pager", body: "Closes #12" }]);
  });

  it("retries as a ready pull request when the repository has no drafts", async () => {
    listOpen([]);
    const drafts: boolean[] = [];
    nock(API)
      .post("/repos/o/r/pulls", (body) => drafts.push(body.draft) > 0)
      .reply(422, {
        message: "Validation Failed",
        errors: [{ message: "Draft pull requests are not supported in this repository." }],
      })
      .post("/repos/o/r/pulls", (body) => drafts.push(body.draft) > 0)
      .reply(201, pull(14, false));
    const result = await openOrUpdatePullRequest(octokit(), params);
    expect(drafts).toEqual([true, false]);
    expect(result).toMatchObject({ number: 14, created: true, draft: false });
  });

  it("passes other validation errors on", async () => {
    listOpen([]);
    nock(API)
      .post("/repos/o/r/pulls")
      .reply(422, {
        message: "Validation Failed",
        errors: [{ message: "No commits between main and x" }],
      });
    await expect(openOrUpdatePullRequest(octokit(), params)).rejects.toMatchObject({ status: 422 });
  });
});

describe("findPullRequestForBranch", () => {
  it("returns the open pull request for owner:branch, or undefined", async () => {
    listOpen([pull(9, true)]);
    expect(await findPullRequestForBranch(octokit(), params)).toEqual({
      number: 9,
      url: "https://github.com/o/r/pull/9",
      title: "t",
      draft: true,
      baseRef: "main",
    });
    listOpen([]);
    expect(await findPullRequestForBranch(octokit(), params)).toBeUndefined();
  });
});
