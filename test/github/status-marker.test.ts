import { generateKeyPairSync } from "node:crypto";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedactor } from "../../src/agent/redact.js";
import { createGitHubAppClients } from "../../src/github/client.js";
import { createStatusReporter, findMarkedComment } from "../../src/github/status.js";
import { createFakeGitHub } from "../helpers/fake-github.js";

/**
 * A tracking comment whose creation's answer is lost (GitHub made it, then
 * answered 502) must not be posted twice: the first one would say
 * "working" forever. The real clients are used, retries and all.
 */

const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const silent = { debug() {}, info() {}, warn() {}, error() {} };

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

function setup(marker?: string) {
  const github = createFakeGitHub({ owner: "o", repo: "r" });
  github.mountNock();
  const octokit = createGitHubAppClients({
    appId: 1,
    privateKey,
    log: silent,
    secondMs: 1,
  }).installation(42);
  const status = createStatusReporter({
    octokit,
    repo: { owner: "o", repo: "r" },
    issueNumber: 12,
    source: { kind: "issue_comment", id: 55 },
    clock: Date,
    redact: createRedactor([]),
    ...(marker ? { marker } : {}),
  });
  return { github, octokit, status };
}

const bodies = (github: ReturnType<typeof setup>["github"]) =>
  (github.comments.get(12) ?? []).map((c) => c.body);

describe("a tracking comment with a marker", () => {
  it("is found, not posted again, when the answer to its creation is lost", async () => {
    const { github, status } = setup("patchwright-job j-1");
    github.inject({
      method: "POST",
      path: /\/issues\/12\/comments$/,
      status: 502,
      afterHandling: true,
    });
    await status.start("Working on it");
    await status.finish("Done: see #13", "success");
    expect(bodies(github)).toHaveLength(1);
    expect(bodies(github)[0]).toContain("Done: see #13");
    expect(bodies(github)[0]).toContain("<!-- patchwright-job j-1 -->");
    expect(status.commentId()).toBe(github.comments.get(12)?.[0]?.id);
  });

  it("without one, a lost answer is retried and the thread gets two", async () => {
    // Why the marker exists: the client's own retry cannot tell.
    const { github, status } = setup();
    github.inject({
      method: "POST",
      path: /\/issues\/12\/comments$/,
      status: 502,
      afterHandling: true,
    });
    await status.start("Working on it");
    expect(bodies(github)).toHaveLength(2);
  });

  it("is posted again when the failed creation really did not happen", async () => {
    const { github, status } = setup("patchwright-job j-2");
    github.inject({ method: "POST", path: /\/issues\/12\/comments$/, status: 502 });
    await status.start("Working on it");
    expect(bodies(github)).toHaveLength(1);
  });

  it("can be found by a later run of the job", async () => {
    const { github, octokit, status } = setup("patchwright-job j-3");
    await status.start("Working on it");
    const found = await findMarkedComment(octokit, {
      owner: "o",
      repo: "r",
      issueNumber: 12,
      source: { kind: "issue_comment", id: 55 },
      marker: "patchwright-job j-3",
      since: new Date(Date.now() - 60_000),
    });
    expect(found?.id).toBe(github.comments.get(12)?.[0]?.id);
    const other = await findMarkedComment(octokit, {
      owner: "o",
      repo: "r",
      issueNumber: 12,
      source: { kind: "issue_comment", id: 55 },
      marker: "patchwright-job j-30",
      since: new Date(Date.now() - 60_000),
    });
    expect(other).toBeUndefined();
  });
});
