import { Octokit } from "@octokit/rest";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { JobRequest } from "../../src/requests/request.js";
import { readThreadAhead } from "../../src/thread/thread-reads.js";

/**
 * The thread's reads started beside the admission (thread-reads.ts): taken
 * once by the plan, which sees a failure as its own, and quiet when nobody
 * takes them.
 */

const API = "https://api.github.com";
const octokit = new Octokit({ auth: "test", baseUrl: API });
const COMMENTS = "/repos/o/r/issues/7/comments";
const PULLS = "/repos/o/r/pulls";

const request: JobRequest = {
  trigger: "issue_comment",
  deliveryId: "d-1",
  repo: { owner: "o", name: "r", cloneUrl: "https://github.com/o/r.git", defaultBranch: "main" },
  target: { kind: "issue", number: 7, title: "Bug", body: "", state: "open", locked: false },
  instruction: "@agent fix it",
  source: { kind: "issue_comment", id: 1, createdAt: "2026-12-01T00:00:00Z" },
  requester: { login: "maintainer", id: 2, type: "User" },
};

const comment = (id: number, body: string) => ({
  id,
  body,
  created_at: "2026-11-30T00:00:00Z",
  user: { login: "maintainer" },
});

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

describe("the thread read ahead", () => {
  it("is taken once: a plan made again reads for itself", async () => {
    nock(API)
      .get(COMMENTS)
      .query({ per_page: 100 })
      .reply(200, [comment(5, "It crashes.")]);
    nock(API).get(PULLS).query({ state: "open", per_page: 100 }).reply(200, []);
    const reads = readThreadAhead(octokit, request);
    expect((await reads.thread())?.map((entry) => entry.body)).toEqual(["It crashes."]);
    expect(await reads.openPulls()).toEqual([]);
    expect(reads.thread()).toBeUndefined();
    expect(reads.openPulls()).toBeUndefined();
    expect(nock.isDone()).toBe(true);
  });

  it("gives the plan an early failure as its own: the job's retries decide", async () => {
    nock(API).get(COMMENTS).query({ per_page: 100 }).reply(502, { message: "Bad Gateway" });
    nock(API).get(PULLS).query({ state: "open", per_page: 100 }).reply(200, []);
    const reads = readThreadAhead(octokit, request);
    await new Promise((done) => setTimeout(done, 50));
    await expect(reads.thread()).rejects.toMatchObject({ status: 502 });
    expect(nock.isDone()).toBe(true);
  });

  it("fails quietly when nobody takes it, and reads no pulls for a pull request", async () => {
    nock(API).get("/repos/o/r/issues/9/comments").query({ per_page: 100 }).reply(502, {});
    nock(API).get("/repos/o/r/pulls/9/reviews").query({ per_page: 100 }).reply(502, {});
    nock(API).get("/repos/o/r/pulls/9/comments").query({ per_page: 100 }).reply(502, {});
    const onPull = {
      ...request,
      target: { ...request.target, kind: "pull_request" as const, number: 9 },
    };
    const reads = readThreadAhead(octokit, onPull);
    expect(reads.openPulls()).toBeUndefined();
    await new Promise((done) => setTimeout(done, 50));
    expect(nock.isDone()).toBe(true);
  });
});
