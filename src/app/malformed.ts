import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot } from "probot";
import { errorMessage } from "../error-message.js";
import { TriggerPayloadError } from "../requests/triggers.js";

/**
 * A signed delivery whose payload our triggers cannot read gets a 400 with
 * a short, generic body and one log line, before the webhook middleware
 * sees it. Thrown from a handler instead, it became a 500 whose body named
 * the missing fields, logged twice with stacks and the whole payload.
 *
 * Probot's server asks for its webhook middleware (getNodeMiddleware) when
 * it starts, after loading the app, so wrapping that method here puts the
 * check in front of every delivery. Unsigned or wrongly signed deliveries
 * pass through untouched: the middleware refuses them as before.
 */
export function guardMalformedPayloads(
  probot: Probot,
  parse: (event: string, payload: unknown, delivery: string) => unknown,
): void {
  const original = probot.getNodeMiddleware.bind(probot);
  probot.getNodeMiddleware = async (options = {}) => {
    const middleware = await original(options);
    // Typed as Probot types its middleware (`next?: Function`).
    // biome-ignore lint/complexity/noBannedTypes: the signature Probot declares.
    return async (req: IncomingMessage, res: ServerResponse, next?: Function): Promise<unknown> => {
      const event = header(req, "x-github-event");
      if (req.method !== "POST" || !event) return middleware(req, res, next);
      const body = await readBody(req);
      // The middleware reads a string body instead of the stream we consumed.
      (req as IncomingMessage & { body?: string }).body = body;
      const problem = await malformation(probot, parse, req, event, body);
      if (problem === null) return middleware(req, res, next);
      probot.log.warn(
        { event, delivery: header(req, "x-github-delivery"), problem },
        "malformed webhook payload",
      );
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "malformed webhook payload" }));
      return true;
    };
  };
}

/** Why a signed delivery cannot be read, or null (unsigned, or fine). */
async function malformation(
  probot: Probot,
  parse: (event: string, payload: unknown, delivery: string) => unknown,
  req: IncomingMessage,
  event: string,
  body: string,
): Promise<string | null> {
  const signature = header(req, "x-hub-signature-256");
  if (!signature) return null;
  const signed = await probot.webhooks.verify(body, signature).catch(() => false);
  if (!signed) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    return "the body is not JSON";
  }
  try {
    parse(event, payload, header(req, "x-github-delivery") ?? "");
    return null;
  } catch (error) {
    if (error instanceof TriggerPayloadError) return errorMessage(error);
    throw error;
  }
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
