import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import nock from "nock";
import { createNodeMiddleware, Probot } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/index.js";
import { DiskJobStore } from "../../src/queue/disk-store.js";
import {
  type Harness,
  issueComment,
  PRIVATE_KEY,
  restartHarness,
  startHarness,
  stopHarness,
} from "../helpers/app-harness.js";
import { fixAddSteps } from "../helpers/demo-repo.js";
import { createGatedModel } from "../helpers/gated-model.js";
import { git } from "../helpers/git-repos.js";
import { instantRetries } from "../helpers/instant-queue.js";
import { callTool, reply } from "../helpers/model-script.js";
import { stubQueue } from "../helpers/stub-queue.js";

let harness: Harness | undefined;
let server: Server | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
  if (server) await new Promise((done) => server?.close(done));
  server = undefined;
});

const commentBodies = (h: Harness, issue = 7) =>
  (h.github.comments.get(issue) ?? []).map((c) => c.body);

/** A mention from octocat on issue 7, with its own comment and delivery id. */
function mention(h: Harness, body: string, commentId: number) {
  const payload = issueComment(h, body);
  payload.comment.id = commentId;
  payload.comment.html_url = `https://github.com/octo-org/demo/issues/7#issuecomment-${commentId}`;
  return payload;
}

async function send(h: Harness, payload: unknown, id: string): Promise<void> {
  await h.probot.receive({ id, name: "issue_comment", payload } as never);
}

function refsOf(h: Harness, prefix: string): Array<{ ref: string; sha: string }> {
  const out = git(
    h.repo.dir,
    ["for-each-ref", "--format=%(refname) %(objectname)", prefix],
    h.repo.env,
  );
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [ref = "", sha = ""] = line.split(" ");
      return { ref, sha };
    });
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** Turn 1 reads add(), turn 2 fixes it, turn 3 (held) would report. */
function fixThenHold() {
  return createGatedModel(fixAddSteps(), 3);
}

describe("jobs that survive", () => {
  it("on SIGTERM mid-job: checkpoints, says it paused, and the next process resumes with the same commits", async () => {
    const first = fixThenHold();
    harness = await startHarness({
      steps: [],
      scripts: [first, [reply("The fix from before the restart is complete; nothing more to do.")]],
    });
    const h = harness;
    await send(h, mention(h, "@agent fix add", 555), "d-1");
    await first.held;
    await until(() => refsOf(h, "refs/patchwright/wip/").length === 1, "the checkpoint ref");
    const [checkpoint] = refsOf(h, "refs/patchwright/wip/");

    await h.stop(0);
    expect(h.github.pulls).toHaveLength(0);
    const paused = commentBodies(h);
    expect(paused).toHaveLength(1);
    expect(paused[0]).toContain("Paused");
    expect(git(h.repo.dir, ["show", `${checkpoint?.sha}:src/add.js`], h.repo.env)).toContain(
      "a + b",
    );

    harness = await restartHarness(h);
    await harness.idle();
    const [pull] = harness.github.pulls;
    expect(harness.github.pulls).toHaveLength(1);
    const branch = pull?.head.ref ?? "";
    // The checkpoint is the branch's commit, as it was: nothing was made again.
    expect(harness.repo.sha(branch)).toBe(checkpoint?.sha);
    expect(harness.repo.show(branch, "src/add.js")).toContain("a + b");
    expect(refsOf(harness, "refs/patchwright/wip/")).toEqual([]);
    // One tracking comment, edited from "paused" to the final report.
    const bodies = commentBodies(harness);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain(pull?.html_url);
    expect(bodies[0]).not.toContain("Paused");
    const resumedPrompt = JSON.stringify(harness.models[1]?.requests[0]?.messages[0]);
    expect(resumedPrompt).toContain("interrupted");
    expect(resumedPrompt).toContain(checkpoint?.sha.slice(0, 7));
  });

  it("keeps the checkpoint until the work is published: a run that dies after the push resumes from it", async () => {
    const delays: number[] = [];
    harness = await startHarness({
      steps: [],
      // The second run has nothing left to do: the work must come from the checkpoint.
      scripts: [fixAddSteps(), [reply("The fix is already committed; nothing more to do.")]],
      queue: instantRetries(delays),
    });
    const h = harness;
    // The branch is pushed, then GitHub fails to open the pull request (past the client's retries).
    h.github.inject({ method: "POST", path: /^\/repos\/octo-org\/demo\/pulls$/, times: 4 });
    await send(h, mention(h, "@agent fix add", 555), "d-1");
    await h.idle();

    expect(delays).toEqual([5_000]);
    expect(h.models).toHaveLength(2);
    const resumedPrompt = JSON.stringify(h.models[1]?.requests[0]?.messages[0]);
    expect(resumedPrompt).toContain("interrupted");
    expect(resumedPrompt).toContain("1 commit");
    const [pull] = h.github.pulls;
    expect(h.github.pulls).toHaveLength(1);
    expect(h.repo.show(pull?.head.ref ?? "", "src/add.js")).toContain("a + b");
    // The pull request is from the branch the first run pushed: no second branch.
    const branches = refsOf(h, "refs/heads/").filter((r) => r.ref !== "refs/heads/main");
    expect(branches.map((r) => r.ref)).toEqual([`refs/heads/${pull?.head.ref}`]);
    // Published now: the checkpoint is gone.
    expect(refsOf(h, "refs/patchwright/wip/")).toEqual([]);
    const bodies = commentBodies(h);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain(pull?.html_url);
  });

  it("folds mentions made while a job runs into one follow-up that adds commits to the same pull request", async () => {
    const first = createGatedModel(fixAddSteps(), 3);
    harness = await startHarness({
      steps: [],
      scripts: [
        first,
        [
          callTool("write_file", { file_path: "NOTES.md", content: "notes\n" }),
          reply("Added NOTES.md as asked."),
        ],
      ],
    });
    const h = harness;
    await send(h, mention(h, "@agent fix add", 555), "d-1");
    await first.held;
    await send(h, mention(h, "@agent also add notes", 601), "d-2");
    await send(h, mention(h, "@agent and mention the fix", 602), "d-3");
    await send(h, mention(h, "@agent keep it short", 603), "d-4");
    // The running job's comment says what waits behind it; nobody gets a reply of their own.
    await until(
      () => commentBodies(h).some((body) => body.includes("3 more requests on this thread")),
      "the queue note",
    );
    first.open();
    await h.idle();

    expect(h.models).toHaveLength(2);
    const followUp = JSON.stringify(h.models[1]?.requests[0]?.messages);
    for (const words of ["also add notes", "and mention the fix", "keep it short"])
      expect(followUp).toContain(words);
    // One pull request, with both jobs' commits on its branch.
    expect(h.github.pulls).toHaveLength(1);
    const branch = h.github.pulls[0]?.head.ref ?? "";
    expect(h.repo.show(branch, "src/add.js")).toContain("a + b");
    expect(h.repo.show(branch, "NOTES.md")).toBe("notes");
    // Two tracking comments (one per job), no "queued" replies.
    const bodies = commentBodies(h);
    expect(bodies).toHaveLength(2);
    expect(bodies.join("\n")).not.toMatch(/as soon as it finishes/i);
    expect(bodies[1]).toContain(h.github.pulls[0]?.html_url);
  });

  it("costs no API call for chatter once the repository's config is known, and none for its own comments", async () => {
    harness = await startHarness({ steps: fixAddSteps() });
    const h = harness;
    const own = mention(h, "Working on @octocat's request", 700);
    own.sender = { ...own.sender, login: "patchwright[bot]", type: "Bot" };
    await send(h, own, "own-1");
    expect(h.github.calls).toHaveLength(0);

    for (let i = 0; i < 20; i++) await send(h, mention(h, `lgtm ${i}`, 800 + i), `chat-${i}`);
    await h.idle();
    const reads = h.github.calls.filter((c) =>
      c.path.endsWith("/contents/.github%2Fpatchwright.yml"),
    );
    expect(reads).toHaveLength(1);
    // The config read (and the token it needed) is all; no reaction, comment or job.
    expect(
      h.github.calls.filter((c) => !c.path.includes("/access_tokens") && !reads.includes(c)),
    ).toEqual([]);
    expect(h.models).toHaveLength(0);
  });

  it("runs a repeated delivery, or the same comment under a new id, once, across a restart", async () => {
    harness = await startHarness({ steps: fixAddSteps() });
    await send(harness, mention(harness, "@agent fix add", 555), "d-1");
    await harness.idle();
    expect(harness.github.pulls).toHaveLength(1);
    await harness.stop();
    harness = await restartHarness(harness);
    await send(harness, mention(harness, "@agent fix add", 555), "d-1");
    await send(harness, mention(harness, "@agent fix add", 555), "d-1-redelivered");
    await harness.idle();
    expect(harness.models).toHaveLength(1);
    expect(harness.github.pulls).toHaveLength(1);
    expect(commentBodies(harness)).toHaveLength(1);
  });

  it("reports a job that kept dying on its tracking comment, with a link to the saved work", async () => {
    harness = await startHarness({ steps: fixAddSteps() });
    const h = harness;
    await h.stop();
    // What three crashes in a row leave behind: a running record out of
    // attempts, its tracking comment saying "working", a checkpoint.
    h.github.comments.set(7, [
      {
        id: 9001,
        body: "Working on @octocat's request",
        user: { login: "patchwright[bot]", id: 1, type: "Bot" },
        created_at: new Date().toISOString(),
        html_url: "https://github.com/octo-org/demo/issues/7#issuecomment-9001",
      },
    ]);
    const store = new DiskJobStore(join(h.env.PATCHWRIGHT_CACHE_DIR ?? "", "jobs"));
    const request = (await import("../../src/requests/triggers.js")).parseTrigger(
      "issue_comment.created",
      mention(h, "@agent fix add", 555),
      "d-crashy",
    );
    await store.write({
      id: "job-crashy",
      kind: "request",
      key: "octo-org/demo#7",
      deliveryId: "d-crashy",
      installationId: 42,
      inputs: [request],
      state: "running",
      attempts: 3,
      trackingComment: {
        id: 9001,
        url: "https://github.com/octo-org/demo/issues/7#issuecomment-9001",
      },
      checkpoint: "0123456789abcdef0123456789abcdef01234567",
      outcome: {
        conclusion: "retrying",
        message: "GitHub answered 502 to GET /repos/octo-org/demo/issues/7/comments: Server Error",
      },
      createdAt: Date.now(),
      updatedAt: Date.now(),
    });
    // Its journal is closed (written through) before the App opens the store.
    await store.close();
    harness = await restartHarness(h);
    await harness.idle();
    expect(harness.models).toHaveLength(0);
    const [body] = commentBodies(harness);
    expect(commentBodies(harness)).toHaveLength(1);
    expect(body).toContain("stopped working on this request");
    expect(body).toContain("refs/patchwright/wip/job-crashy");
    expect(body).toContain("/commit/0123456789abcdef0123456789abcdef01234567");
    expect(body).toContain("The last attempt failed: GitHub answered 502");
  });
});

describe("the webhook", () => {
  it("answers 5xx when the job cannot be stored, so GitHub can deliver it again", async () => {
    const h = await startHarness({ steps: [] });
    harness = h;
    const failing = stubQueue({
      submit: async () => {
        throw new Error("disk full");
      },
    });
    const { app } = createApp({
      env: { ...h.env, WEBHOOK_SECRET: "secret", PATCHWRIGHT_WORKER: "off" },
      queue: failing,
    });
    const probot = new Probot({
      appId: 1,
      privateKey: PRIVATE_KEY,
      secret: "secret",
      logLevel: "fatal",
    });
    const middleware = await createNodeMiddleware(app, { probot });
    server = createServer((req, res) => void middleware(req, res));
    await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
    const body = JSON.stringify(mention(h, "@agent fix add", 555));
    nock.enableNetConnect("127.0.0.1");
    const response = await fetch(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "issue_comment",
          "x-github-delivery": "d-5xx",
          "x-hub-signature-256": `sha256=${createHmac("sha256", "secret").update(body).digest("hex")}`,
        },
        body,
      },
    );
    expect(response.status).toBeGreaterThanOrEqual(500);
  });
});
