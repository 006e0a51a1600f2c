import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot } from "probot";
import { errorMessage } from "../error-message.js";
import { TriggerPayloadError } from "../requests/triggers.js";
import { createLoopTurns } from "./loop-turns.js";

/**
 * What the App does with one signed delivery of `event` (the header's name):
 * the work that answers it, or null when the App has no route for the event
 * (Probot's middleware takes it then). Throws TriggerPayloadError when the
 * payload cannot be read.
 */
export type DeliveryRoute = (
  event: string,
  payload: unknown,
  delivery: string,
) => (() => Promise<void>) | null;

/**
 * The App's own door for webhooks, in front of Probot's middleware. A
 * signed delivery is verified and parsed once here, and one the App routes
 * is handled and answered here: Probot's middleware would verify and parse
 * it again and build an authenticated client for every event, which under a
 * burst cost as much CPU as storing the job (handlers ask for a client only
 * when they call GitHub). What this door does not take (another path, other
 * content, a bad signature, events without a route) goes to the middleware,
 * which answers as before.
 *
 * A signed payload the App's routes cannot read gets a 400 with a short,
 * generic body and one log line. Thrown from a handler instead, it became a
 * 500 whose body named the missing fields, logged twice with stacks and
 * the whole payload.
 *
 * Probot's server asks for its webhook middleware (getNodeMiddleware) when
 * it starts, after loading the app, so wrapping that method here puts the
 * door in front of every delivery.
 */
export function takeDeliveries(probot: Probot, route: DeliveryRoute): void {
  const original = probot.getNodeMiddleware.bind(probot);
  probot.getNodeMiddleware = async (options = {}) => {
    const middleware = await original(options);
    const path = normalizePath(options.path ?? probot.webhookPath);
    const turns = createLoopTurns(DELIVERIES_PER_TURN, { holdMs: ACCEPT_HOLD_MS });
    /** Connections a delivery came on: the first on each tells the turns that one was accepted. */
    const seen = new WeakSet<object>();
    // Typed as Probot types its middleware (`next?: Function`).
    // biome-ignore lint/complexity/noBannedTypes: the signature Probot declares.
    return async (req: IncomingMessage, res: ServerResponse, next?: Function): Promise<unknown> => {
      const delivery = webhookHeaders(req, path);
      if (!delivery) return middleware(req, res, next);
      if (!seen.has(req.socket)) {
        seen.add(req.socket);
        turns.opened();
      }
      const body = await readBody(req);
      // Verifying and parsing is most of a delivery's work here: a few per turn (loop-turns.ts).
      await turns.next();
      // The middleware reads a string body instead of the stream consumed here.
      (req as IncomingMessage & { body?: string }).body = body;
      const signed = await probot.webhooks.verify(body, delivery.signature).catch(() => false);
      if (!signed) return middleware(req, res, next);
      let work: (() => Promise<void>) | null;
      try {
        work = route(delivery.event, parseJson(body), delivery.id);
      } catch (error) {
        if (!(error instanceof TriggerPayloadError)) throw error;
        probot.log.warn(
          { event: delivery.event, delivery: delivery.id, problem: errorMessage(error) },
          "malformed webhook payload",
        );
        return answer(res, 400, { error: "malformed webhook payload" });
      }
      if (!work) return middleware(req, res, next);
      try {
        await work();
      } catch (error) {
        // As Probot's middleware answers a handler's failure: GitHub may deliver again.
        probot.log.error({ err: error, event: delivery.event, delivery: delivery.id }, "webhook");
        return answer(res, 500, { error: `Error: ${errorMessage(error)}` });
      }
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok\n");
      return true;
    };
  };
}

/**
 * Measured with the queue bench's world (500 deliveries, 50 in flight on
 * connections opened at the burst's start, 5 runs each): none 85–348 ms at
 * p99, 2 per turn 86–144, 3 per turn 92–173, 5 per turn 77–105.
 */
const DELIVERIES_PER_TURN = 5;

/**
 * How long a burst's first wave may be held while its connections are
 * accepted (loop-turns.ts). The hold ends sooner, at the first turn in
 * which no delivery came on a new connection; this bounds it on a slow
 * machine. Measured with the
 * bench's world, disk store, 24 bursts a side: p99 over 100 ms in 10 of 24
 * without a hold (max 264 ms), in 2 of 24 with 25 ms (max 122 ms); 25 and
 * 50 ms alike on disk, and on Redis 60 ms was better than 25.
 */
const ACCEPT_HOLD_MS = 50;

/** The headers of a delivery this door takes: a JSON POST to the webhook path with every GitHub header. */
function webhookHeaders(req: IncomingMessage, path: string) {
  if (req.method !== "POST") return undefined;
  const event = header(req, "x-github-event");
  const signature = header(req, "x-hub-signature-256");
  const id = header(req, "x-github-delivery");
  if (!event || !signature || !id) return undefined;
  if (!/^\s*application\/json\s*(?:;|$)/u.test(header(req, "content-type") ?? "")) return undefined;
  const pathname = URL.canParse(req.url ?? "", "http://localhost")
    ? new URL(req.url ?? "", "http://localhost").pathname
    : undefined;
  if (pathname === undefined || normalizePath(pathname) !== path) return undefined;
  return { event, signature, id };
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new TriggerPayloadError("the body is not JSON");
  }
}

function normalizePath(path: string): string {
  return path.replace(/\/+$/, "") || "/";
}

function answer(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
  return true;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
