import { Octokit } from "@octokit/rest";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { findPullRequestForBranch, openOrUpdatePullRequest } from "../../src/github/pulls.js";
import { createFakeGitHub, type FakeGitHub } from "../helpers/fake-github.js";

const API = "https://api.github.com";
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const octokit = () => new Octokit({ auth: "test", log: silent });

beforeAll(() => {
  nock.disableNetConnect();
  // The loopback fake GitHub.
  nock.enableNetConnect("127.0.0.1");
});
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

describe("openOrUpdatePullRequest when the answer is lost", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** A plain client (no retries of its own) against the loopback fake GitHub. */
  async function serve(): Promise<{ github: FakeGitHub; client: Octokit }> {
    const github = createFakeGitHub({ owner: "o", repo: "r", onePullPerBranch: true });
    const server = await github.listen();
    closers.push(server.close);
    return { github, client: new Octokit({ baseUrl: server.url, log: silent }) };
  }

  const creations = (github: FakeGitHub) =>
    github.calls.filter((c) => c.method === "POST" && c.path === "/repos/o/r/pulls");

  it("uses the pull request it created when GitHub answered 502", async () => {
    const { github, client } = await serve();
    github.inject({ method: "POST", path: /\/pulls$/, status: 502, afterHandling: true });
    const result = await openOrUpdatePullRequest(client, params);
    expect(result).toEqual({
      number: 100,
      url: "https://github.com/o/r/pull/100",
      created: true,
      draft: true,
    });
    expect(github.pulls).toHaveLength(1);
    // A retry of the whole job finds it and updates it: still one pull request.
    expect(await openOrUpdatePullRequest(client, params)).toMatchObject({
      number: 100,
      created: false,
    });
    expect(github.pulls).toHaveLength(1);
    expect(creations(github)).toHaveLength(1);
  });

  it("uses the pull request it created when the connection broke after sending", async () => {
    const { github, client } = await serve();
    github.inject({ method: "POST", path: /\/pulls$/, drop: true, afterHandling: true });
    expect(await openOrUpdatePullRequest(client, params)).toMatchObject({
      number: 100,
      created: true,
    });
    expect(github.pulls).toHaveLength(1);
  });

  it("takes over the pull request GitHub says already exists, with this title and body", async () => {
    const { github, client } = await serve();
    github.addPull({
      number: 7,
      title: "Someone else's",
      body: "",
      draft: false,
      head: { ref: params.head, sha: "1".repeat(40), repo: null },
      base: { ref: "main", repo: { full_name: "o/r" } },
    });
    // The lookup before the creation raced with whoever opened it.
    github.inject({ method: "GET", path: /\/pulls$/, status: 200, body: [] });
    const result = await openOrUpdatePullRequest(client, params);
    expect(result).toMatchObject({ number: 7, created: false });
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]).toMatchObject({ title: params.title, body: params.body });
  });

  it("passes the failure on when nothing was created", async () => {
    const { github, client } = await serve();
    github.inject({ method: "POST", path: /\/pulls$/, status: 502 });
    await expect(openOrUpdatePullRequest(client, params)).rejects.toMatchObject({ status: 502 });
    expect(github.pulls).toEqual([]);
  });
});
