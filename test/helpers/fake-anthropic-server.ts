import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import {
  isCutStep,
  isErrorStep,
  parseScript,
  type ScriptData,
  type ScriptError,
} from "../../src/agent/model/script.js";
import {
  errorBody,
  messageEvents,
  messageJson,
  type SseEvent,
  sse,
} from "./fake-anthropic-events.js";
import { flattenHeaders, parseJson, readBody } from "./http-body.js";

/**
 * A loopback server that speaks the Messages API (`POST /v1/messages`) with
 * real SSE streaming, replaying one scripted step per request. Tests point the
 * real SDK at it; CLI end-to-end tests run this file as a process.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body (or the raw text if it was not JSON). */
  body: unknown;
}

/** A scripted step, or a function choosing one from the request it answers. */
export type ServerStep = ScriptData | ((request: RecordedRequest) => ScriptData);

export interface FakeAnthropic {
  /** Base URL for the SDK / ANTHROPIC_BASE_URL, e.g. http://127.0.0.1:41234 */
  url: string;
  requests: RecordedRequest[];
  push(...steps: ServerStep[]): void;
  /** Requests waiting for a step (with holdWhenEmpty). */
  held(): number;
  close(): Promise<void>;
}

export interface FakeAnthropicOptions {
  /**
   * When the script runs out, hold the request (the model "thinking") until
   * a step is pushed, instead of failing it: a job caught mid-run. A held
   * request whose client went away (a killed process) is dropped.
   */
  holdWhenEmpty?: boolean;
  /** The loopback address to listen on (default 127.0.0.1): another one is "another machine" to a proxy rule. */
  host?: string;
}

export async function startFakeAnthropic(
  steps: ServerStep[] = [],
  onRequest: (request: RecordedRequest) => void = () => {},
  options: FakeAnthropicOptions = {},
): Promise<FakeAnthropic> {
  const queue = [...steps];
  const requests: RecordedRequest[] = [];
  const held: Array<{ recorded: RecordedRequest; res: ServerResponse }> = [];
  let messageCount = 0;

  function answer(recorded: RecordedRequest, res: ServerResponse): void {
    if (recorded.method !== "POST" || !recorded.path.startsWith("/v1/messages")) {
      const message = `fake-anthropic: no route ${recorded.method} ${recorded.path}`;
      sendError(res, { error: { status: 404, message } });
      return;
    }
    if (queue.length === 0 && options.holdWhenEmpty) {
      const entry = { recorded, res };
      held.push(entry);
      res.on("close", () => {
        const at = held.indexOf(entry);
        if (at >= 0) held.splice(at, 1);
      });
      return;
    }
    const next = queue.shift();
    if (!next) {
      const message = `fake-anthropic: script exhausted, unexpected request #${requests.length}`;
      // x-should-retry: false, so a client that honours it fails fast instead of backing off.
      sendError(res, { error: { status: 500, message } }, { "x-should-retry": "false" });
      return;
    }
    const step = typeof next === "function" ? next(recorded) : next;
    const body = (recorded.body ?? {}) as { model?: string; stream?: boolean };
    const id = `msg_fake_${++messageCount}`;
    const model = body.model ?? "claude-fake";
    if (isErrorStep(step)) {
      if (step.error.inStream) streamError(res, step, id, model);
      else sendError(res, step);
      return;
    }
    if (isCutStep(step)) {
      const content = step.cut.content ?? [{ type: "text", text: "This answer never finishes." }];
      const events = messageEvents({ content }, id, model);
      cutStream(res, events.slice(0, step.cut.afterEvents ?? 3));
      return;
    }
    if (body.stream === true) streamResponse(res, messageEvents(step, id, model));
    else sendJson(res, 200, messageJson(step, id, model));
  }

  const server = createServer((req, res) => {
    readBody(req).then(
      (text) => {
        const recorded: RecordedRequest = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: flattenHeaders(req),
          body: parseJson(text),
        };
        requests.push(recorded);
        onRequest(recorded);
        answer(recorded, res);
      },
      (error: unknown) => sendError(res, { error: { status: 400, message: String(error) } }),
    );
  });

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    requests,
    push: (...more) => {
      queue.push(...more);
      for (const { recorded, res } of held.splice(0, more.length)) answer(recorded, res);
    },
    held: () => held.length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "request-id": "req_fake",
  });
}

function streamResponse(res: ServerResponse, events: SseEvent[]): void {
  startSse(res);
  for (const event of events) res.write(sse(event));
  res.end();
}

function streamError(res: ServerResponse, step: ScriptError, id: string, model: string): void {
  startSse(res);
  const [start, ping] = messageEvents({ content: [] }, id, model);
  for (const event of [start, ping]) if (event) res.write(sse(event));
  res.end(sse({ event: "error", data: errorBody(step) }));
}

/** Sends some events, then drops the connection without finishing the chunked body. */
function cutStream(res: ServerResponse, events: SseEvent[]): void {
  startSse(res);
  res.flushHeaders();
  const chunk = events.map(sse).join("");
  const destroy = () => res.socket?.destroy();
  if (chunk === "") setImmediate(destroy);
  else res.write(chunk, () => setImmediate(destroy));
}

function sendError(
  res: ServerResponse,
  step: ScriptError,
  extraHeaders: Record<string, string> = {},
): void {
  const headers: Record<string, string> = { ...extraHeaders };
  if (step.error.retryAfter !== undefined) headers["retry-after"] = String(step.error.retryAfter);
  if (step.error.retryAfterMs !== undefined)
    headers["retry-after-ms"] = String(step.error.retryAfterMs);
  sendJson(res, step.error.status, errorBody(step), headers);
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "content-type": "application/json",
    "request-id": "req_fake",
    ...headers,
  });
  res.end(JSON.stringify(body));
}

/**
 * `node --import tsx test/helpers/fake-anthropic-server.ts <script.json> [--record <out.json>]`
 * prints `listening <url>` and serves the script; `--record` rewrites the
 * file with every request received so far, for the test to assert on.
 */
async function main(args: string[]): Promise<void> {
  const [scriptPath] = args;
  if (!scriptPath)
    throw new Error("usage: fake-anthropic-server.ts <script.json> [--record <out.json>]");
  const recordIndex = args.indexOf("--record");
  const recordPath = recordIndex >= 0 ? args[recordIndex + 1] : undefined;
  const steps = parseScript(JSON.parse(readFileSync(scriptPath, "utf8")));
  const server = await startFakeAnthropic(steps, () => {
    if (recordPath) writeFileSync(recordPath, JSON.stringify(server.requests, null, 2));
  });
  process.stdout.write(`listening ${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
