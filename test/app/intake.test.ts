import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeMiddleware, Probot } from "probot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type DeliveryRoute, takeDeliveries } from "../../src/app/intake.js";
import { TriggerPayloadError } from "../../src/requests/triggers.js";
import { PRIVATE_KEY } from "../helpers/app-harness.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const SECRET = "intake-secret";
const CREATED = JSON.stringify({ action: "created" });

interface Door {
  url: string;
  routed: Array<{ event: string; delivery: string; payload: unknown }>;
  /** What reached the App's handlers through Probot (`probot.on`). */
  viaProbot: string[];
  warnings: string[];
}

let server: Server | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  const open = server;
  server = undefined;
  if (open) await new Promise((done) => open.close(done));
});

/** Probot as `probot run` serves it, with the App's door in front and `route` behind it. */
async function door(route: DeliveryRoute): Promise<Door> {
  const routed: Door["routed"] = [];
  const viaProbot: string[] = [];
  const warnings: string[] = [];
  const probot = new Probot({
    appId: 1,
    privateKey: PRIVATE_KEY,
    secret: SECRET,
    logLevel: "fatal",
  });
  const middleware = await createNodeMiddleware(
    (app: Probot) => {
      const warn = app.log.warn.bind(app.log);
      app.log.warn = ((...args: Parameters<typeof warn>) => {
        warnings.push(JSON.stringify(args));
        return warn(...args);
      }) as typeof warn;
      takeDeliveries(app, (event, payload, delivery) => {
        routed.push({ event, delivery, payload });
        return route(event, payload, delivery);
      });
      app.onAny(async (context) => {
        viaProbot.push(`${context.name}:${context.id}`);
      });
    },
    { probot },
  );
  server = createServer(
    (req, res) =>
      void middleware(req, res, () => {
        res.writeHead(404).end();
      }),
  );
  await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/api/github/webhooks`, routed, viaProbot, warnings };
}

function post(
  url: string,
  event: string,
  delivery: string,
  body: string,
  options: { secret?: string; contentType?: string } = {},
) {
  const signature = createHmac("sha256", options.secret ?? SECRET)
    .update(body)
    .digest("hex");
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": options.contentType ?? "application/json",
      "x-github-event": event,
      "x-github-delivery": delivery,
      "x-hub-signature-256": `sha256=${signature}`,
    },
    body,
  });
}

describe("the App's webhook door", () => {
  it("handles and answers a routed delivery itself, verified and parsed once", async () => {
    let handled = 0;
    const d = await door(() => async () => {
      handled += 1;
    });
    const response = await post(d.url, "issue_comment", "d-1", CREATED);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok\n");
    expect(handled).toBe(1);
    expect(d.routed).toEqual([
      { event: "issue_comment", delivery: "d-1", payload: { action: "created" } },
    ]);
    // Probot did not dispatch it again (nor build a client for it).
    expect(d.viaProbot).toEqual([]);
  });

  it("answers only once the work is done, and a 500 when it fails", async () => {
    let finish: () => void = () => {};
    const d = await door((_event, _payload, delivery) =>
      delivery === "slow"
        ? () => new Promise<void>((done) => (finish = done))
        : async () => {
            throw new Error("the job store did not answer");
          },
    );
    let answered = false;
    const slow = post(d.url, "push", "slow", "{}").then((r) => {
      answered = true;
      return r;
    });
    await new Promise((done) => setTimeout(done, 200));
    expect(answered).toBe(false);
    finish();
    expect((await slow).status).toBe(200);
    const failed = await post(d.url, "push", "fails", "{}");
    expect(failed.status).toBe(500);
    expect(await failed.text()).toContain("the job store did not answer");
  });

  it("leaves events without a route to Probot, which dispatches them as before", async () => {
    const d = await door(() => null);
    const response = await post(d.url, "installation", "d-2", CREATED);
    expect(response.status).toBe(200);
    expect(d.viaProbot).toEqual(["installation:d-2"]);
  });

  it("refuses a payload its route cannot read with a short 400 and one warning", async () => {
    const d = await door(() => {
      throw new TriggerPayloadError("issue_comment payload lacks issue.number");
    });
    for (const [delivery, body] of [
      ["unreadable", CREATED],
      ["not-json", "{nope"],
    ] as const) {
      const response = await post(d.url, "issue_comment", delivery, body);
      expect(response.status, delivery).toBe(400);
      const text = await response.text();
      expect(text).toBe(JSON.stringify({ error: "malformed webhook payload" }));
    }
    expect(d.warnings).toHaveLength(2);
    expect(d.warnings[0]).toContain("issue.number");
    expect(d.warnings[1]).toContain("not JSON");
    expect(d.viaProbot).toEqual([]);
  });

  it("takes nothing that is not a signed JSON delivery to the webhook path", async () => {
    const d = await door(() => async () => {});
    const body = CREATED;
    // Signed with another secret: Probot's middleware refuses it.
    const forged = await post(d.url, "issue_comment", "forged", body, { secret: "guess" });
    expect(forged.status).toBe(400);
    const form = await post(d.url, "issue_comment", "form", body, {
      contentType: "application/x-www-form-urlencoded",
    });
    expect(form.status).toBe(415);
    const elsewhere = await post(d.url.replace("/webhooks", "/other"), "issue_comment", "x", body);
    expect(elsewhere.status).toBe(404);
    expect(d.routed).toEqual([]);
    expect(d.viaProbot).toEqual([]);
    // The same path with a trailing slash and a query is the webhook path.
    const slash = await post(`${d.url}/?from=proxy`, "issue_comment", "slash", body);
    expect(slash.status).toBe(200);
    expect(d.routed.map((r) => r.delivery)).toEqual(["slash"]);
  });

  it("accepts a burst's connections before it handles their deliveries", async () => {
    const order: string[] = [];
    const d = await door(() => async () => {
      order.push("handled");
    });
    server?.on("connection", () => order.push("accepted"));
    const count = 10;
    const { port } = new URL(d.url);
    const signature = createHmac("sha256", SECRET).update(CREATED).digest("hex");
    const requests = Array.from({ length: count }, (_, i) =>
      [
        "POST /api/github/webhooks HTTP/1.1",
        `Host: 127.0.0.1:${port}`,
        "Content-Type: application/json",
        `Content-Length: ${CREATED.length}`,
        "X-GitHub-Event: issue_comment",
        `X-GitHub-Delivery: burst-${i}`,
        `X-Hub-Signature-256: sha256=${signature}`,
        "",
        CREATED,
      ].join("\r\n"),
    );
    const sent = `${await makeTempDir("pw-burst-")}/sent`;
    // GitHub's side: every connection opened and its delivery written at
    // once, then every answer read (an answer that is not a 200 fails it).
    const client = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { connect } from "node:net";
        import { writeFileSync } from "node:fs";
        const [port, sent, requests] = [process.argv[1], process.argv[2], JSON.parse(process.argv[3])];
        let written = 0, ok = 0;
        for (const request of requests) {
          const socket = connect(Number(port), "127.0.0.1");
          let text = "";
          socket.write(request, () => { if (++written === requests.length) writeFileSync(sent, ""); });
          socket.on("data", (chunk) => {
            text += chunk;
            if (!text.includes("\\r\\n\\r\\n")) return;
            if (!text.startsWith("HTTP/1.1 200")) { console.error(text); process.exit(1); }
            socket.destroy();
            if (++ok === requests.length) process.exit(0);
          });
        }`,
        port,
        sent,
        JSON.stringify(requests),
      ],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
    const exited = new Promise<number | null>((done) => client.once("exit", done));
    // The clock stands still: what is checked here is that the hold lasts
    // while connections keep coming. Its time bound (loop-turns.test) ran
    // out on two busy cores, this process waiting for one, with four
    // connections still unaccepted.
    const still = performance.now();
    vi.spyOn(performance, "now").mockReturnValue(still);
    // This thread busy until the burst is written: its connections wait in the kernel, unaccepted.
    const deadline = Date.now() + 15_000;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (!existsSync(sent) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 5);
    expect(existsSync(sent)).toBe(true);
    expect(await exited).toBe(0);
    // libuv accepts one connection per turn: without the hold, the first
    // deliveries were handled while the later connections still waited.
    expect(order).toEqual([...Array(count).fill("accepted"), ...Array(count).fill("handled")]);
  });
});
