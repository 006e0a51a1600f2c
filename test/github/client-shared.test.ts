import { generateKeyPairSync } from "node:crypto";
import Bottleneck from "bottleneck";
import { Redis } from "ioredis";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGitHubAppClients } from "../../src/github/client.js";
import { writeSpacing } from "../../src/github/write-spacing.js";
import { createFakeGitHub } from "../helpers/fake-github.js";
import { type RedisServer, startRedis } from "../helpers/redis-server.js";

/**
 * Workers on several machines act for the same installation: GitHub's
 * spacing of writes must hold across them, not per process.
 */

const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const silent = { debug() {}, info() {}, warn() {}, error() {} };
/**
 * Long enough that a busy event loop cannot hide the spacing: the limiter
 * spaces when each write may go, and a timer that fires late on a loaded
 * machine (50 ms was seen) brings the next write closer to the last.
 */
const SECOND_MS = 250;

let redis: RedisServer;
const connections: Bottleneck.IORedisConnection[] = [];
beforeAll(async () => {
  redis = await startRedis();
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});
afterAll(async () => {
  for (const connection of connections) await connection.disconnect(false);
  nock.cleanAll();
  nock.enableNetConnect();
  await redis.stop();
});

function connect(): Bottleneck.IORedisConnection {
  const connection = new Bottleneck.IORedisConnection({ client: new Redis(redis.url) });
  connections.push(connection);
  return connection;
}

/** A "process" (client factory) with its own connection to the shared limits, or none. */
const factory = (shared: boolean) =>
  createGitHubAppClients({
    appId: 1,
    privateKey,
    log: silent,
    secondMs: SECOND_MS,
    sharedLimits: shared ? connect() : undefined,
  });

/** Two "processes" (client factories) write 3 comments each at once; the gaps between the writes. */
async function gaps(shared: boolean): Promise<number[]> {
  const github = createFakeGitHub({ owner: "o", repo: "r" });
  github.mountNock();
  const [one, two] = [factory(shared).installation(42), factory(shared).installation(42)];
  // Tokens first, so only the comments are timed.
  await Promise.all(
    [one, two].map((o) => o.rest.issues.listComments({ owner: "o", repo: "r", issue_number: 1 })),
  );
  await Promise.all(
    [one, one, one, two, two, two].map((octokit, i) =>
      octokit.rest.issues.createComment({ owner: "o", repo: "r", issue_number: 1, body: `c${i}` }),
    ),
  );
  nock.cleanAll();
  // When each write reached GitHub, not when its answer was read: a loaded
  // machine may read two answers together however far apart they were sent.
  const sent = github.calls
    .filter((call) => call.method === "POST" && call.path.endsWith("/comments"))
    .map((call) => call.at)
    .sort((a, b) => a - b);
  expect(sent).toHaveLength(6);
  return sent.slice(1).map((t, i) => t - (sent[i] ?? t));
}

describe("write spacing shared through Redis", () => {
  it("spaces one installation's writes across processes", async () => {
    const apart = await gaps(true);
    expect(Math.min(...apart)).toBeGreaterThanOrEqual(SECOND_MS * 0.6);
  });

  it("is per process without it (the case it fixes)", async () => {
    const apart = await gaps(false);
    expect(Math.min(...apart)).toBeLessThan(SECOND_MS * 0.4);
  });

  it("goes on when a process died in the middle of its turn to write", async () => {
    const github = createFakeGitHub({ owner: "o", repo: "r" });
    github.mountNock();
    // The process killed (-9) while the throttling plugin's no-op ran on
    // installation 43's write limiter: a turn that never ends.
    const dead = writeSpacing(SECOND_MS, connect());
    let started = false;
    void dead.write.key("installation-43").schedule(() => {
      started = true;
      return new Promise(() => {});
    });
    await expect.poll(() => started).toBe(true);
    const octokit = factory(true).installation(43);
    const comment = octokit.rest.issues.createComment({
      owner: "o",
      repo: "r",
      issue_number: 1,
      body: "after the crash",
    });
    // A concurrency of one held that turn for good: this write waited forever.
    const late = new Promise((_, fail) =>
      setTimeout(() => fail(new Error("still waiting")), 10_000),
    );
    await expect(Promise.race([comment, late])).resolves.toMatchObject({ status: 201 });
    nock.cleanAll();
  });
});
