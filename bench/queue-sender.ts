import { createHmac, randomUUID } from "node:crypto";
import { Agent, request } from "node:http";
import { commentPayload, WEBHOOK_SECRET } from "./queue-world.js";

/**
 * GitHub's side of the webhook burst, in a process of its own (so the
 * App's process only answers): signed issue_comment.created deliveries,
 * a few one at a time to warm the App up, then the burst `inFlight` at a
 * time. Tells the parent over IPC when the burst starts, then every answer's time.
 */

export interface SenderTask {
  url: string;
  cloneUrl: string;
  count: number;
  inFlight: number;
  warmup: number;
  /** False: a new connection for every delivery, as a client without keep-alive sends them. */
  keepAlive?: boolean;
}

export interface SenderResult {
  latencies: number[];
  statuses: Array<[number, number]>;
  mentions: number;
  warmupMentions: number;
  wallMs: number;
}

interface Delivery {
  id: string;
  body: string;
  signature: string;
}

/** Every `chatterEvery`-th delivery is chatter without the phrase; the rest mention the bot, each on an issue of its own. */
function deliveries(cloneUrl: string, count: number, firstIssue: number, chatterEvery: number) {
  const list: Delivery[] = [];
  let mentions = 0;
  for (let i = 0; i < count; i++) {
    const issue = firstIssue + i;
    const chatter = i % chatterEvery === chatterEvery - 1;
    if (!chatter) mentions += 1;
    const text = chatter
      ? "Thanks, I can reproduce this on main too."
      : `@agent please fix the wrong sum reported in #${issue}`;
    const body = JSON.stringify(commentPayload(cloneUrl, issue, 5_000_000 + issue, text));
    const signature = `sha256=${createHmac("sha256", WEBHOOK_SECRET).update(body).digest("hex")}`;
    list.push({ id: randomUUID(), body, signature });
  }
  return { list, mentions };
}

/**
 * Kept-alive connections, as an HTTP client's pool keeps them: the burst
 * opens its connections at once (or, with keepAlive false, one for each
 * delivery). node:http, not fetch: fetch cost this process ~1.8 ms of CPU
 * per delivery on the 2-core VM (node:http ~0.3 ms), so the sender, not
 * the App, set the pace and the latencies.
 */
function post(agent: Agent, url: string, d: Delivery): Promise<number> {
  return new Promise((done, fail) => {
    const req = request(url, {
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(d.body),
        "x-github-event": "issue_comment",
        "x-github-delivery": d.id,
        "x-hub-signature-256": d.signature,
      },
    });
    req.once("response", (res) => {
      res.resume();
      res.once("end", () => done(res.statusCode ?? 0));
      res.once("error", fail);
    });
    req.once("error", fail);
    req.end(d.body);
  });
}

async function sendAll(agent: Agent, url: string, list: Delivery[], inFlight: number) {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const lane = async () => {
    for (let d = list[next++]; d; d = list[next++]) {
      const start = performance.now();
      const status = await post(agent, url, d);
      latencies.push(performance.now() - start);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { latencies, statuses: [...statuses] };
}

const task = JSON.parse(process.argv[2] ?? "{}") as SenderTask;
const agent = new Agent({ keepAlive: task.keepAlive !== false });
const warm = deliveries(task.cloneUrl, task.warmup, 90_000, 2);
await sendAll(agent, task.url, warm.list, 1);
const burst = deliveries(task.cloneUrl, task.count, 1, 5);
process.send?.("burst");
const start = performance.now();
const sent = await sendAll(agent, task.url, burst.list, task.inFlight);
const result: SenderResult = {
  ...sent,
  mentions: burst.mentions,
  warmupMentions: warm.mentions,
  wallMs: performance.now() - start,
};
process.send?.(result, () => process.disconnect());
