import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedisQueue } from "../../src/queue/redis-queue.js";
import { jobInputSchemas } from "../../src/service/job-kinds/inputs.js";
import {
  type Harness,
  type HarnessOptions,
  issueComment,
  startHarness,
  stopHarness,
} from "../helpers/app-harness.js";
import { instantRetries } from "../helpers/instant-queue.js";
import { reply } from "../helpers/model-script.js";
import { type RedisServer, startRedis } from "../helpers/redis-server.js";
import { eventually } from "../helpers/service-process.js";

/**
 * Every mention is answered on its own comment, whatever happens to it on
 * the way: folded into the job already waiting on its thread, or asked
 * while GitHub keeps failing the permission check. Both queues, because
 * folding and retries are each queue's own code.
 */

let harness: Harness | undefined;
let redis: RedisServer | undefined;
let queueName = 0;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

type QueueKind = "disk" | "redis";

/** The App's queue: the embedded one with waits skipped (recorded), or BullMQ on a real Redis with millisecond waits. */
function queueFor(kind: QueueKind, delays: number[]): NonNullable<HarnessOptions["queue"]> {
  if (kind === "disk") return instantRetries(delays);
  return () =>
    createRedisQueue({
      url: redis?.url ?? "",
      kinds: jobInputSchemas,
      name: `pw-mentions-${++queueName}`,
      retryBaseMs: 1,
    });
}

const COMMENT_URL = (issue: number, id: number) =>
  `https://github.com/octo-org/demo/issues/${issue}#issuecomment-${id}`;

/** A mention on `issue` with its own comment id and link. */
function mention(h: Harness, issue: number, id: number, body = "@agent look at this") {
  const payload = issueComment(h, body, "octocat", { number: issue });
  payload.comment.id = id;
  payload.comment.html_url = COMMENT_URL(issue, id);
  return payload;
}

/** The reactions on one trigger comment, in the order they were added. */
const reactionsOn = (h: Harness, commentId: number) =>
  h.github.reactions.filter((r) => r.on === `issues/comments/${commentId}`).map((r) => r.content);

const FINAL = ["rocket", "confused"];

// Bursts kept short: every job runs the whole pipeline (workspace, sandbox, agent).
describe.each<[QueueKind, number]>([
  ["disk", 6],
  ["redis", 4],
])("every mention is answered (%s queue)", (kind, issueCount) => {
  it(`a burst of ${issueCount * 2} mentions on ${issueCount} issues: each comment gets 👀 and a final 🚀 or 😕, and a job's report links every request it took`, async () => {
    const delays: number[] = [];
    harness = await startHarness({
      steps: [reply("Nothing needs to change here.")],
      queue: queueFor(kind, delays),
    });
    const h = harness;
    const issues = Array.from({ length: issueCount }, (_, i) => i + 1);
    // A first mention on every issue, then a second one: the second is folded
    // into the first's job when that job has not started yet.
    const burst = [
      ...issues.map((issue) => ({ issue, id: 1000 + issue })),
      ...issues.map((issue) => ({ issue, id: 2000 + issue })),
    ];
    await Promise.all(
      burst.map(({ issue, id }) =>
        h.probot.receive({
          id: `d-${id}`,
          name: "issue_comment",
          payload: mention(h, issue, id),
        } as never),
      ),
    );
    await h.idle();

    for (const { issue, id } of burst) {
      const seen = reactionsOn(h, id);
      expect(
        seen.filter((c) => c === "eyes"),
        `👀 on comment ${id}`,
      ).toHaveLength(1);
      expect(
        seen.filter((c) => FINAL.includes(c)),
        `🚀/😕 on comment ${id}`,
      ).toHaveLength(1);
      // The final reaction comes after the 👀.
      expect(FINAL).toContain(seen.at(-1));
      expect(h.github.comments.get(issue)?.length, `comments on #${issue}`).toBeGreaterThan(0);
    }
    // Some second mentions were folded (their issue's job was still waiting):
    // that job's one report lists both requests, each linked to its comment.
    const folded = issues.filter((issue) =>
      (h.github.comments.get(issue) ?? []).some((c) => c.body.includes("This answers 2 requests")),
    );
    // On disk two jobs start at once (PATCHWRIGHT_CONCURRENCY=2) and the
    // others wait, so their second mention is folded; BullMQ's workers take
    // jobs a moment later, so more may be.
    if (kind === "disk") expect(folded).toHaveLength(issueCount - 2);
    else expect(folded.length).toBeGreaterThan(0);
    for (const issue of folded) {
      const report = (h.github.comments.get(issue) ?? []).find((c) =>
        c.body.includes("This answers 2 requests"),
      )?.body;
      expect(report).toContain(`[@octocat's request](${COMMENT_URL(issue, 1000 + issue)})`);
      expect(report).toContain(`[@octocat's request](${COMMENT_URL(issue, 2000 + issue)})`);
    }
    // One model run per job: a folded mention starts no job of its own.
    expect(h.models).toHaveLength(burst.length - folded.length);
  }, 120_000);

  it.each([
    [
      "permission check",
      /\/collaborators\/octocat\/permission$/,
      "@octocat may ask me for changes",
    ],
    [
      "config read",
      /\/contents\/\.github%2Fpatchwright\.yml$/,
      "when I read `.github/patchwright.yml`",
    ],
  ])(
    "a %s GitHub fails every time goes back to the queue, then the requester is told what failed and to ask again",
    async (what, path, words) => {
      const delays: number[] = [];
      harness = await startHarness({
        steps: [reply("unused")],
        queue: queueFor(kind, delays),
      });
      const h = harness;
      h.github.inject({ method: "GET", path, status: 500, times: 10_000 });
      await h.probot.receive({
        id: "d-500",
        name: "issue_comment",
        payload: mention(h, 7, 555, "@agent fix add"),
      } as never);
      // BullMQ's idle leaves out a retry waiting its (millisecond) delay: wait for the answer.
      await eventually(() => reactionsOn(h, 555).length > 0, "the final reaction", 30_000);
      await h.idle();

      // Three attempts (the queue's), each asking as often as the client retries
      // (1 + 3); the config was also read once by the webhook's trigger gate.
      const asked = h.github.calls.filter((c) => path.test(c.path)).length;
      expect(asked).toBe(what === "config read" ? 13 : 12);
      if (kind === "disk") expect(delays).toEqual([5_000, 10_000]);
      expect(h.models).toHaveLength(0);
      const bodies = (h.github.comments.get(7) ?? []).map((c) => c.body);
      expect(bodies).toHaveLength(1);
      expect(bodies[0]).toContain("GitHub did not answer (500)");
      expect(bodies[0]).toContain(words);
      expect(bodies[0]).toContain("ask again");
      expect(reactionsOn(h, 555)).toEqual(["confused"]);
    },
    60_000,
  );
});
