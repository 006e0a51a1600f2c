import { Octokit } from "@octokit/rest";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { createRedactor } from "../../src/agent/redact.js";
import { createStatusReporter, type StatusReporterDeps } from "../../src/github/status.js";
import type { JobRequest } from "../../src/requests/request.js";

const API = "https://api.github.com";
const SECRET = "model-key-0123456789abcdef";

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

/** A clock and timer queue the test moves by hand. */
function manualTime() {
  let now = 0;
  const timers: Array<{ fn: () => void; at: number; cancelled: boolean }> = [];
  return {
    clock: { now: () => now },
    setTimer(fn: () => void, ms: number) {
      const timer = { fn, at: now + ms, cancelled: false };
      timers.push(timer);
      return { cancel: () => (timer.cancelled = true) };
    },
    advance(ms: number) {
      now += ms;
      for (const timer of timers.splice(0)) {
        if (timer.cancelled) continue;
        if (timer.at <= now) timer.fn();
        else timers.push(timer);
      }
    },
    pending: () => timers.filter((t) => !t.cancelled).length,
  };
}

type Source = JobRequest["source"];

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function setup(source: Source = { kind: "issue_comment", id: 55 }) {
  const time = manualTime();
  const errors: unknown[] = [];
  const deps: StatusReporterDeps = {
    octokit: new Octokit({ auth: "test", log: silent }),
    repo: { owner: "o", repo: "r" },
    issueNumber: 12,
    source,
    clock: time.clock,
    setTimer: (fn, ms) => time.setTimer(fn, ms),
    throttleMs: 3000,
    redact: createRedactor([SECRET]),
    onError: (error) => errors.push(error),
  };
  return { time, errors, reporter: createStatusReporter(deps) };
}

/** Records every JSON body sent to a path, answering with `reply`. */
function record(method: "post" | "patch", path: string, reply: object, times = 100) {
  const bodies: Array<{ body?: string; content?: string }> = [];
  nock(API)
    [method](path, (body) => {
      bodies.push(body as { body?: string });
      return true;
    })
    .times(times)
    .reply(method === "post" ? 201 : 200, reply);
  return bodies;
}

const call = (id: string, command: string): AgentEvent => ({
  type: "tool_call",
  turn: 1,
  id,
  name: "run_shell",
  input: { command },
  summary: `run_shell ${command}`,
});

const comment = { id: 1001, html_url: "https://github.com/o/r/issues/12#issuecomment-1001" };

describe("acknowledge", () => {
  it.each([
    [{ kind: "issue_comment", id: 55 }, "/repos/o/r/issues/comments/55/reactions"],
    [{ kind: "review_comment", id: 66 }, "/repos/o/r/pulls/comments/66/reactions"],
    [{ kind: "label" }, "/repos/o/r/issues/12/reactions"],
    [{ kind: "review", id: 77 }, "/repos/o/r/issues/12/reactions"],
    [{ kind: "event" }, "/repos/o/r/issues/12/reactions"],
  ] as Array<[Source, string]>)("reacts with eyes on %j at %s", async (source, path) => {
    const bodies = record("post", path, { id: 1, content: "eyes" }, 1);
    const { reporter, errors } = setup(source);
    await reporter.acknowledge();
    expect(bodies).toEqual([{ content: "eyes" }]);
    expect(errors).toEqual([]);
  });

  it("goes beside the tracking comment, and settled() waits for it", async () => {
    nock(API)
      .post("/repos/o/r/issues/comments/55/reactions")
      .delay(300)
      .reply(201, { id: 1, content: "eyes" });
    const created = record("post", "/repos/o/r/issues/12/comments", comment, 1);
    const { reporter, errors } = setup();
    let reacted = false;
    void reporter.acknowledge().then(() => {
      reacted = true;
    });
    // The comment does not wait for the reaction's answer.
    await reporter.start("Working on it");
    expect(created).toHaveLength(1);
    expect(reacted).toBe(false);
    await reporter.settled();
    expect(reacted).toBe(true);
    expect(errors).toEqual([]);
  });

  it("never throws when the reaction fails", async () => {
    nock(API).post("/repos/o/r/issues/comments/55/reactions").reply(500, { message: "boom" });
    const { reporter, errors } = setup();
    await expect(reporter.acknowledge()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});

describe("tracking comment", () => {
  it("creates one comment and only edits it afterwards, at most once per window", async () => {
    const created = record("post", "/repos/o/r/issues/12/comments", comment, 1);
    const edits = record("patch", "/repos/o/r/issues/comments/1001", comment);
    const { reporter, time, errors } = setup();

    await reporter.start("Working on #12");
    expect(created).toHaveLength(1);
    expect(created[0]?.body).toMatch(/^Working on #12/);

    time.advance(10_000);
    reporter.step("Preparing the workspace");
    await reporter.settled();
    expect(edits).toHaveLength(1);

    // Many events inside one window: no edit until the window ends, then one with the last state.
    for (let i = 0; i < 20; i++) {
      time.advance(100);
      reporter.update(call(`s${i}`, `echo ${i}`));
    }
    await reporter.settled();
    expect(edits).toHaveLength(1);
    expect(time.pending()).toBe(1);

    time.advance(1000);
    await reporter.settled();
    expect(edits).toHaveLength(2);
    expect(edits[1]?.body).toContain("Running `echo 19`");
    expect(edits[1]?.body).toContain("- [x] Preparing the workspace");

    // A quiet period, then one event: edited at once (no need to wait).
    time.advance(60_000);
    reporter.update({ type: "turn_start", turn: 3 });
    await reporter.settled();
    expect(edits).toHaveLength(3);
    expect(edits[2]?.body).toContain("turn 3");
    expect(errors).toEqual([]);
  });

  it("sends events that arrive while the comment is being created in a later edit", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const created: string[] = [];
    nock(API)
      .post("/repos/o/r/issues/12/comments")
      .reply(async (_uri, body) => {
        created.push((body as { body: string }).body);
        await gate;
        return [201, comment];
      });
    const edits = record("patch", "/repos/o/r/issues/comments/1001", comment);
    const { reporter, time } = setup();
    const started = reporter.start("Working");
    while (created.length === 0) await new Promise((resolve) => setImmediate(resolve));
    reporter.update(call("s1", "npm ci"));
    release();
    await started;
    expect(created[0]).not.toContain("npm ci");
    time.advance(3000);
    await reporter.settled();
    expect(edits).toHaveLength(1);
    expect(edits[0]?.body).toContain("Running `npm ci`");
  });

  it("never runs two edits at once", async () => {
    record("post", "/repos/o/r/issues/12/comments", comment, 1);
    let inFlight = 0;
    let maxInFlight = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const bodies: string[] = [];
    nock(API)
      .patch("/repos/o/r/issues/comments/1001")
      .times(5)
      .reply(async (_uri, body) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        bodies.push((body as { body: string }).body);
        await gate;
        inFlight -= 1;
        return [200, comment];
      });
    const { reporter, time } = setup();
    await reporter.start("Working");
    time.advance(5000);
    reporter.update(call("s1", "first"));
    await new Promise((resolve) => setImmediate(resolve));
    time.advance(5000);
    reporter.update(call("s2", "second"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(bodies).toHaveLength(1);
    release();
    await reporter.settled();
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toContain("Running `second`");
    expect(maxInFlight).toBe(1);
  });

  it("shows the budget's note under the headline and the agent's spend against the cap as it goes", async () => {
    const created = record("post", "/repos/o/r/issues/12/comments", comment, 1);
    const edits = record("patch", "/repos/o/r/issues/comments/1001", comment);
    const { reporter, time } = setup();
    await reporter.start("Working on #12", { usd: 2, note: "💰 Budget $2.00, as requested" });
    expect(created[0]?.body).toMatch(/^Working on #12\n\n💰 Budget \$2\.00, as requested/);

    time.advance(10_000);
    reporter.update({ type: "turn_start", turn: 1 });
    reporter.update({
      type: "usage",
      turn: 1,
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      costUsd: 0.41,
      totalUsage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      totalCostUsd: 0.41,
    });
    await reporter.settled();
    time.advance(10_000);
    await reporter.settled();
    const body = edits.at(-1)?.body ?? "";
    expect(body).toContain("Agent at work · turn 1 · $0.4100 of $2.00 budget");
    expect(body).toContain("💰 Budget $2.00, as requested");
  });

  it("finish writes the final report with the steps and reacts with rocket", async () => {
    record("post", "/repos/o/r/issues/12/comments", comment, 1);
    const edits = record("patch", "/repos/o/r/issues/comments/1001", comment);
    const reactions = record("post", "/repos/o/r/issues/comments/55/reactions", { id: 2 });
    const { reporter, time, errors } = setup();
    await reporter.start("Working");
    time.advance(5000);
    reporter.step("Verifying");
    reporter.update(call("s1", "npm test"));
    await reporter.finish("**🚀 Opened pull request #13**", "success");
    expect(time.pending()).toBe(0);
    const final = edits.at(-1)?.body ?? "";
    expect(final.startsWith("**🚀 Opened pull request #13**")).toBe(true);
    expect(final).toContain("<summary>Steps</summary>");
    expect(final).toContain("- [x] Verifying");
    expect(reactions).toEqual([{ content: "rocket" }]);

    // Nothing after the end reaches GitHub.
    const count = edits.length;
    time.advance(10_000);
    reporter.update(call("s2", "late"));
    await reporter.settled();
    expect(edits).toHaveLength(count);
    expect(errors).toEqual([]);
  });

  it("finish on failure reacts with confused, and creates the comment if there was none", async () => {
    const created = record("post", "/repos/o/r/issues/12/comments", comment, 1);
    const reactions = record("post", "/repos/o/r/issues/comments/55/reactions", { id: 2 });
    const { reporter } = setup();
    await reporter.finish("**😕 Setup failed**", "failure");
    expect(created.map((c) => c.body)).toEqual(["**😕 Setup failed**"]);
    expect(reactions).toEqual([{ content: "confused" }]);
  });

  it("posts the final report anew when the tracking comment was deleted", async () => {
    const created = record("post", "/repos/o/r/issues/12/comments", comment, 2);
    nock(API).patch("/repos/o/r/issues/comments/1001").reply(404, { message: "Not Found" });
    record("post", "/repos/o/r/issues/comments/55/reactions", { id: 2 });
    const { reporter, errors } = setup();
    await reporter.start("Working");
    await reporter.finish("Done", "success");
    expect(created.map((c) => c.body)).toEqual(["Working", "Done"]);
    expect(errors).toEqual([]);
  });

  it("posts the final report anew when every edit of the tracking comment fails", async () => {
    const created = record("post", "/repos/o/r/issues/12/comments", comment, 2);
    nock(API)
      .patch("/repos/o/r/issues/comments/1001")
      .times(5)
      .reply(502, { message: "Server Error" });
    record("post", "/repos/o/r/issues/comments/55/reactions", { id: 2 });
    const { reporter, errors, time } = setup();
    await reporter.start("Working");
    time.advance(5000);
    reporter.step("Verifying");
    await reporter.settled();
    await reporter.finish("**🚀 Done**", "success");
    expect(created.map((c) => c.body?.split("\n")[0])).toEqual(["Working", "**🚀 Done**"]);
    expect(reporter.commentId()).toBe(1001);
    // The failed edits were reported, not thrown.
    expect(errors.map((e) => (e as { status?: number }).status)).toEqual([502, 502]);
  });

  it("keeps secrets out of every request body", async () => {
    const created = record("post", "/repos/o/r/issues/12/comments", comment, 2);
    const edits = record("patch", "/repos/o/r/issues/comments/1001", comment);
    record("post", "/repos/o/r/issues/comments/55/reactions", { id: 2 });
    const { reporter, time } = setup();
    const token = `ghs_${"a".repeat(36)}`;
    await reporter.start(`Working with ${SECRET}`);
    time.advance(5000);
    reporter.update(call("s1", `curl -H "Authorization: ${token}" https://x`));
    reporter.step(`Pushing with ${token}`);
    await reporter.finish(`Failed: ${SECRET}`, "failure");
    await reporter.reply(`token ${token}`);
    const sent = JSON.stringify([...created, ...edits]);
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain(token);
    expect(sent).toContain("[redacted: ");
    expect(created).toHaveLength(2);
  });

  it("stays under GitHub's body limit", async () => {
    const created = record("post", "/repos/o/r/issues/12/comments", comment, 1);
    const edits = record("patch", "/repos/o/r/issues/comments/1001", comment);
    record("post", "/repos/o/r/issues/comments/55/reactions", { id: 2 });
    const { reporter, time } = setup();
    await reporter.start("x".repeat(70_000));
    time.advance(5000);
    reporter.step("Verifying");
    await reporter.finish("y".repeat(100_000), "success");
    for (const body of [...created, ...edits])
      expect(body.body?.length).toBeLessThanOrEqual(65_536);
    expect(edits.at(-1)?.body).toContain("- [x] Verifying");
  });
});

describe("a job resumed by another process", () => {
  it("edits the tracking comment it is given instead of creating one, and tells its id", async () => {
    const created = record("post", "/repos/o/r/issues/12/comments", comment, 1);
    const edits = record("patch", "/repos/o/r/issues/comments/777", comment);
    record("post", "/repos/o/r/issues/comments/55/reactions", { id: 2 });
    const time = manualTime();
    const reporter = createStatusReporter({
      octokit: new Octokit({ auth: "test", log: silent }),
      repo: { owner: "o", repo: "r" },
      issueNumber: 12,
      source: { kind: "issue_comment", id: 55 },
      clock: time.clock,
      setTimer: (fn, ms) => time.setTimer(fn, ms),
      redact: createRedactor([]),
      existingComment: { id: 777, url: "https://github.com/o/r/issues/12#issuecomment-777" },
    });
    expect(reporter.commentId()).toBe(777);
    expect(reporter.commentUrl()).toBe("https://github.com/o/r/issues/12#issuecomment-777");
    await reporter.start("Resuming after a restart");
    await reporter.settled();
    await reporter.finish("Done", "success");
    expect(created).toEqual([]);
    expect(edits.map((e) => e.body?.split("\n")[0])).toEqual(["Resuming after a restart", "Done"]);
  });

  it("exposes the id of the comment it created, to be stored", async () => {
    record("post", "/repos/o/r/issues/12/comments", comment, 1);
    const { reporter } = setup();
    expect(reporter.commentId()).toBeUndefined();
    await reporter.start("Working");
    expect(reporter.commentId()).toBe(1001);
  });
});

describe("review comment source", () => {
  it("answers in the review thread and edits that reply", async () => {
    const replies = record(
      "post",
      "/repos/o/r/pulls/12/comments/66/replies",
      { id: 2002, html_url: "u" },
      2,
    );
    const edits = record("patch", "/repos/o/r/pulls/comments/2002", { id: 2002 });
    const reactions = record("post", "/repos/o/r/pulls/comments/66/reactions", { id: 3 });
    const { reporter, time, errors } = setup({ kind: "review_comment", id: 66 });
    await reporter.acknowledge();
    await reporter.start("Working");
    time.advance(5000);
    reporter.update(call("s1", "npm test"));
    await reporter.settled();
    await reporter.finish("Done", "success");
    await reporter.reply("Queued");
    expect(replies.map((r) => r.body)).toEqual(["Working", "Queued"]);
    expect(edits.map((e) => e.body?.split("\n")[0])).toEqual(["Working", "Done"]);
    expect(reactions).toEqual([{ content: "eyes" }, { content: "rocket" }]);
    expect(errors).toEqual([]);
  });
});

describe("reply", () => {
  it("posts a standalone issue comment", async () => {
    const created = record("post", "/repos/o/r/issues/12/comments", comment, 1);
    const { reporter } = setup({ kind: "label" });
    await reporter.reply("This issue is closed.");
    expect(created).toEqual([{ body: "This issue is closed." }]);
  });
});
