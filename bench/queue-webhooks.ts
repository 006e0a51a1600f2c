import { fork } from "node:child_process";
import { readdir } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { createNodeMiddleware, Probot } from "probot";
import { createApp } from "../src/app/index.js";
import { openJobQueue } from "../src/service/open-queue.js";
import { PRIVATE_KEY } from "../test/helpers/app-harness.js";
import type { SenderResult, SenderTask } from "./queue-sender.js";
import { mountFakeGitHub, unmountFakeGitHub, WEBHOOK_SECRET } from "./queue-world.js";

/**
 * The webhook side alone: the App as `npm start` builds it (createApp, the
 * queue it opens from the environment; PATCHWRIGHT_WORKER=off, so jobs are
 * only stored), served over HTTP on loopback as `probot run` serves it (the
 * App's door, app/intake.ts, in front of Probot's middleware) in this
 * process, and a burst of signed deliveries over kept-alive connections
 * (or a new one each) from another (queue-sender.ts).
 */

export interface BurstResult extends SenderResult {
  ok: number;
  /** Jobs in the store after the burst, warm-up not counted. */
  stored: number;
  /** Requests the App made to GitHub during the whole run (token, bot login, config). */
  githubCalls: number;
  /** How busy the App's event loop was during the burst (0..1): near 1 is CPU-bound. */
  busy: number;
}

const SENDER = fileURLToPath(new URL("./queue-sender.ts", import.meta.url));

/** The sender's results, and how busy this process's event loop was during the burst. */
function runSender(task: SenderTask): Promise<SenderResult & { busy: number }> {
  const child = fork(SENDER, [JSON.stringify(task)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((done, fail) => {
    let result: SenderResult | undefined;
    let start = performance.eventLoopUtilization();
    let busy = 0;
    child.on("message", (message: "burst" | SenderResult) => {
      if (message === "burst") start = performance.eventLoopUtilization();
      else {
        busy = performance.eventLoopUtilization(start).utilization;
        result = message;
      }
    });
    child.once("error", fail);
    child.once("exit", (code) =>
      result
        ? done({ ...result, busy })
        : fail(new Error(`the webhook sender exited (${code}) without results`)),
    );
  });
}

export async function webhookBurst(options: {
  cloneUrl: string;
  gitEnv: Record<string, string>;
  cacheDir: string;
  redisUrl?: string | undefined;
  count: number;
  inFlight: number;
  warmup: number;
  keepAlive?: boolean;
}): Promise<BurstResult> {
  const github = mountFakeGitHub();
  const env: Record<string, string> = {
    ...options.gitEnv,
    APP_ID: "1",
    PRIVATE_KEY,
    WEBHOOK_SECRET,
    PATCHWRIGHT_CACHE_DIR: options.cacheDir,
    PATCHWRIGHT_WORKER: "off",
    PATCHWRIGHT_DEPS_SCHEDULER: "off",
    ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
  };
  // The embedded store, with no worker here: the bench brings its queue, as
  // a worker process would share it (the App refuses that on its own).
  const queue = options.redisUrl
    ? undefined
    : await openJobQueue({
        redisUrl: undefined,
        cacheDir: options.cacheDir,
        maxAttempts: 3,
        jobLockMs: 60_000,
      });
  const { app, stop } = createApp({ env, ...(queue ? { queue } : {}) });
  // As `probot run` builds it (default, throttled Octokit; every delivery's signature
  // checked), with the log off: `npm start` would also write a line or two per delivery.
  const probot = new Probot({
    appId: 1,
    privateKey: PRIVATE_KEY,
    secret: WEBHOOK_SECRET,
    logLevel: "fatal",
  });
  const middleware = await createNodeMiddleware(app, { probot });
  const server = createServer((req, res) => void middleware(req, res));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`;
  let sent: SenderResult & { busy: number };
  try {
    sent = await runSender({ ...options, url });
  } finally {
    await new Promise((done) => server.close(done));
    // The store closed: the embedded one writes record files after the answer.
    await stop(0);
    await queue?.close();
    unmountFakeGitHub();
  }
  const ok = sent.statuses.reduce((n, [s, c]) => (s >= 200 && s < 300 ? n + c : n), 0);
  const stored = (await countStored(options)) - sent.warmupMentions;
  return { ...sent, ok, stored, githubCalls: github.calls.length };
}

/** Jobs in the store (warm-up included), read the way each back end keeps them. */
async function countStored(options: { cacheDir: string; redisUrl?: string | undefined }) {
  if (!options.redisUrl) {
    const names = await readdir(join(options.cacheDir, "jobs", "records"));
    return names.filter((name) => name.endsWith(".json")).length;
  }
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue("patchwright", { connection });
  try {
    const counts = await queue.getJobCounts("waiting", "delayed", "prioritized", "active");
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}
