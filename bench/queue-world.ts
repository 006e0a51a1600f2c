import { join } from "node:path";
import nock from "nock";
import { jobKey, triggerKey } from "../src/requests/request.js";
import { parseTrigger } from "../src/requests/triggers.js";
import type { ServiceJob } from "../src/service/job-kinds/inputs.js";
import { aim, examplePayload, OWNER, type Payload, REPO } from "../test/helpers/app-harness.js";
import { ADD_BUG_FILES } from "../test/helpers/demo-repo.js";
import { createFakeGitHub, type FakeGitHub } from "../test/helpers/fake-github.js";
import { createBareRepo, gitTestEnv } from "../test/helpers/git-repos.js";

/**
 * What the queue benchmark's processes share: the repository the jobs work
 * on (a local bare one, the demo whose add() subtracts), the fake GitHub
 * (mounted in nock in each process that talks to it), the webhook payloads
 * and the job records a webhook would store.
 */

export const WEBHOOK_SECRET = "bench-webhook-secret";

/** A bare repository under `root` and git's isolated environment; once per benchmark run. */
export function createWorld(root: string): { cloneUrl: string; gitEnv: Record<string, string> } {
  const gitEnv = gitTestEnv(join(root, "home"));
  const repo = createBareRepo({ root, env: gitEnv, files: ADD_BUG_FILES });
  return { cloneUrl: repo.url, gitEnv };
}

/** GitHub for this process: the fake in nock, loopback left open (our own HTTP, Redis). */
export function mountFakeGitHub(): FakeGitHub {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
  const github = createFakeGitHub({
    owner: OWNER,
    repo: REPO,
    permissions: { octocat: "write" },
  });
  github.mountNock();
  return github;
}

export function unmountFakeGitHub(): void {
  nock.cleanAll();
  nock.enableNetConnect();
}

/** A real `issue_comment.created` payload from octocat on `issue`, comment `commentId`. */
export function commentPayload(
  cloneUrl: string,
  issue: number,
  commentId: number,
  body: string,
): Payload {
  const payload = aim(
    examplePayload("issue_comment", "created", (p: Payload) => !p.issue.pull_request),
    cloneUrl,
    { login: "octocat" },
  );
  payload.issue.number = issue;
  payload.issue.title = `add() returns the wrong sum (${issue})`;
  payload.issue.state = "open";
  payload.issue.locked = false;
  payload.issue.html_url = `https://github.com/${OWNER}/${REPO}/issues/${issue}`;
  payload.comment.id = commentId;
  payload.comment.body = body;
  payload.comment.html_url = `${payload.issue.html_url}#issuecomment-${commentId}`;
  return payload;
}

/** The record the webhook stores for an `@agent` mention on `issue` (as src/app/index.ts builds it). */
export function mentionJob(
  cloneUrl: string,
  issue: number,
  deliveryId: string,
  body = "@agent fix add() please",
  commentId = 700_000 + issue,
): ServiceJob {
  const payload = commentPayload(cloneUrl, issue, commentId, body);
  const request = parseTrigger("issue_comment", payload, deliveryId);
  if (!request || request.installationId === undefined) throw new Error("no request");
  return {
    kind: "request",
    key: jobKey(request),
    deliveryId,
    triggerId: triggerKey(request),
    installationId: request.installationId,
    input: request,
    coalesce: true,
  };
}
