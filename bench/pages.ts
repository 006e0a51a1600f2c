import { mkdtemp, rm } from "node:fs/promises";
import { createServer, get, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionCodec } from "../src/pages/auth/session.js";
import { createPagesHandler } from "../src/pages/router.js";
import { parsePagesEnv } from "../src/pages/settings.js";
import { createJobsView } from "../src/service/jobs-view/index.js";
import { openJobQueue } from "../src/service/open-queue.js";
import { median, timeMedian } from "./timing.js";

/**
 * The job pages (issue #26) with a full store: the list page's answer time
 * with 10,000 stored jobs on the embedded queue (as an operator, who sees
 * every job, so no GitHub call is in the way), and the fan-out of one
 * job's live events to 50 viewers over SSE (from the append to the last
 * viewer's read). Limits: the list under 200 ms, an event at every viewer
 * within 100 ms (p99).
 */

const JOBS = 10_000;
const VIEWERS = 50;
const EVENTS = 100;

export async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "pw-bench-pages-"));
  const queue = await openJobQueue({
    redisUrl: undefined,
    cacheDir: dir,
    maxAttempts: 3,
    jobLockMs: 60_000,
  });
  const env = {
    GITHUB_CLIENT_ID: "Iv1.bench",
    GITHUB_CLIENT_SECRET: "bench-client-secret",
    PATCHWRIGHT_PUBLIC_URL: "http://127.0.0.1",
    PATCHWRIGHT_ADMINS: "ops",
    WEBHOOK_SECRET: "bench",
  };
  const config = parsePagesEnv(env, undefined);
  if (!config.on) throw new Error("pages off");
  const cookie = `pw_session=${createSessionCodec(config.settings.sessionSecret, Date).sealSession({ login: "ops", token: "t" }).value}`;
  const handler = createPagesHandler({
    config,
    view: createJobsView({ queue }),
    heartbeatMs: 60_000,
  });
  const server = createServer((req, res) => {
    void handler(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const storing = performance.now();
    let last = "";
    for (let i = 0; i < JOBS; i++) {
      const repo = `repo-${i % 40}`;
      const submitted = await queue.submit({
        kind: "deps",
        key: `o/${repo}#deps-${i}`,
        deliveryId: `bench-${i}`,
        installationId: 1 + (i % 5),
        input: {
          installationId: 1 + (i % 5),
          owner: "o",
          repo,
          cloneUrl: `https://github.com/o/${repo}.git`,
          defaultBranch: "main",
        },
      });
      if ("id" in submitted && typeof submitted.id === "string") last = submitted.id;
    }
    console.log(`${JOBS} jobs stored in ${Math.round(performance.now() - storing)} ms`);

    const page = (path: string) => fetchText(`${base}${path}`, cookie);
    const first = await page("/jobs");
    if (!first.includes("<table")) throw new Error("the list did not render");
    const list = await timeMedian(9, () => page("/jobs"));
    const filtered = await timeMedian(9, () => page("/jobs?repo=o%2Frepo-7&state=queued"));
    const stats = await timeMedian(5, () => page("/jobs/stats"));
    const job = await timeMedian(9, () => page(`/jobs/${last}`));
    console.log(`list page, ${JOBS} jobs:       median ${ms(list)} (limit 200 ms)`);
    console.log(`list, one repository:     median ${ms(filtered)} (limit 200 ms)`);
    console.log(`stats page:               median ${ms(stats)} (limit 500 ms)`);
    console.log(`a job's page:             median ${ms(job)} (limit 200 ms)`);

    // 50 viewers on one live job; each event's delay until the last viewer has it.
    const viewers = await Promise.all(
      Array.from({ length: VIEWERS }, () => openStream(`${base}/jobs/${last}/events`, cookie)),
    );
    const delays: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const marker = `bench-step-${i}`;
      const sent = performance.now();
      const arrived = viewers.map((viewer) => viewer.waitFor(marker));
      await queue.log.append(last, { at: Date.now(), type: "step", text: marker });
      await Promise.all(arrived);
      delays.push(performance.now() - sent);
    }
    for (const viewer of viewers) viewer.close();
    delays.sort((a, b) => a - b);
    const p99 = delays[Math.ceil(delays.length * 0.99) - 1] ?? 0;
    console.log(
      `SSE fan-out to ${VIEWERS} viewers, ${EVENTS} events: p50 ${ms(median(delays))}, p99 ${ms(p99)}, max ${ms(delays.at(-1) ?? 0)} (limit p99 < 100 ms)`,
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    await queue.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

function fetchText(url: string, cookie: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { cookie } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () =>
        res.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: ${res.statusCode}`)),
      );
    }).on("error", reject);
  });
}

/** An SSE reader that resolves a wait once the stream has carried the text. */
async function openStream(url: string, cookie: string) {
  let seen = "";
  const waits: Array<{ text: string; done: () => void }> = [];
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    get(url, { headers: { cookie, accept: "text/event-stream" } }, resolve).on("error", reject);
  });
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => {
    seen = (seen + chunk).slice(-20_000);
    for (const wait of [...waits]) {
      if (seen.includes(wait.text)) {
        waits.splice(waits.indexOf(wait), 1);
        wait.done();
      }
    }
  });
  return {
    waitFor: (text: string) =>
      seen.includes(text)
        ? Promise.resolve()
        : new Promise<void>((done) => waits.push({ text, done })),
    close: () => res.destroy(),
  };
}
