import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AssistantBlock } from "../../src/agent/model/model.js";
import {
  fillUsage,
  isCutStep,
  isErrorStep,
  type ScriptData,
  type ScriptResponse,
} from "../../src/agent/model/script.js";
import { flattenHeaders, parseJson, readBody } from "./http-body.js";

/**
 * Loopback servers for the providers beyond Anthropic's own API. This file
 * holds the recording server they share and the OpenAI-compatible one:
 * `POST /v1/chat/completions` streamed as real SSE chunks, text and tool-call
 * arguments split over several deltas, usage in a last chunk with no choices
 * (what `stream_options.include_usage` asks for), then `data: [DONE]`.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface LoopbackServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A server that records every request (body parsed as JSON when it is) before answering. */
export async function startRecordingServer(
  answer: (request: RecordedRequest, res: ServerResponse) => void,
): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
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
        answer(recorded, res);
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Writes `chunk`, then drops the connection mid-body. */
export function cutAfter(res: ServerResponse, chunk: string | Buffer): void {
  res.flushHeaders();
  const destroy = () => res.socket?.destroy();
  if (chunk.length === 0) setImmediate(destroy);
  else res.write(chunk, () => setImmediate(destroy));
}

/** Splits into three pieces (fewer for tiny strings) so clients must join them. */
export function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export type FakeOpenAi = LoopbackServer;

/**
 * How the server streams tool calls: OpenAI's way (numbered deltas, the
 * arguments in pieces), or Gemini's compatible endpoint's, as measured on
 * it: each call whole in one chunk with no `index`, the step's first call
 * carrying `extra_content.google.thought_signature`, and finish_reason
 * "stop" even when it called tools. Or OpenAI's, less the usage chunk
 * `include_usage` asks for (LM Studio's, Ollama's before 0.5.2). Or
 * OpenAI's with each call's arguments as the JSON object itself, whole, not
 * a string (llama-server as reported in llama.cpp #20198).
 */
export type ChatDialect = "openai" | "gemini" | "no-usage" | "object-arguments";

/** The thought signature the Gemini dialect puts on a call. */
export const geminiSignature = (callId: string) => `sig-${callId}`;

/**
 * Replays one scripted step per request. Script usage maps onto OpenAI's:
 * prompt_tokens = input + cache read (OpenAI counts cached tokens inside
 * prompt_tokens), cached_tokens = cache read.
 */
export async function startFakeOpenAi(
  steps: ScriptData[],
  dialect: ChatDialect = "openai",
): Promise<FakeOpenAi> {
  const queue = [...steps];
  let count = 0;
  return startRecordingServer((request, res) => {
    if (request.method !== "POST" || request.path !== "/v1/chat/completions") {
      sendJson(res, 404, { error: { message: `no route ${request.method} ${request.path}` } });
      return;
    }
    const step = queue.shift();
    if (!step) {
      sendJson(res, 400, {
        error: { message: "fake-openai: script exhausted", type: "invalid_request_error" },
      });
      return;
    }
    const model = (request.body as { model?: string }).model ?? "fake";
    const id = `chatcmpl-${++count}`;
    if (isErrorStep(step) && step.error.inStream) {
      // A 200 whose stream carries an error object, as OpenAI sends when a model overloads mid-answer.
      startSse(res);
      const [first] = chatChunks({ content: [{ type: "text", text: "partial" }] }, id, model);
      res.write(data(first));
      res.end(
        data({
          error: {
            message: step.error.message,
            type: step.error.type ?? "server_error",
            code: null,
          },
        }),
      );
      return;
    }
    if (isErrorStep(step)) {
      const headers: Record<string, string> = {};
      if (step.error.retryAfterMs !== undefined)
        headers["retry-after-ms"] = String(step.error.retryAfterMs);
      sendJson(
        res,
        step.error.status,
        {
          error: {
            message: step.error.message,
            type: step.error.type ?? "server_error",
            code: null,
          },
        },
        headers,
      );
      return;
    }
    startSse(res);
    if (isCutStep(step)) {
      const chunks = chatChunks(
        { content: step.cut.content ?? [{ type: "text", text: "never finishes" }] },
        id,
        model,
      );
      cutAfter(
        res,
        chunks
          .slice(0, step.cut.afterEvents ?? 2)
          .map(data)
          .join(""),
      );
      return;
    }
    for (const chunk of chatChunks(step, id, model, dialect)) res.write(data(chunk));
    res.end("data: [DONE]\n\n");
  });
}

function startSse(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
}

function data(chunk: unknown): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The chunk sequence the server sends for one answer. */
export function chatChunks(
  step: ScriptResponse,
  id: string,
  model: string,
  dialect: ChatDialect = "openai",
): unknown[] {
  const base = { id, object: "chat.completion.chunk", created: 1_700_000_000, model };
  const chunk = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const out: unknown[] = [chunk({ role: "assistant", content: "" })];
  const calls = step.content.filter(
    (block): block is Extract<AssistantBlock, { type: "tool_use" }> => block.type === "tool_use",
  );
  for (const block of step.content) {
    if (block.type === "reasoning")
      for (const piece of pieces(block.text)) out.push(chunk({ reasoning_content: piece }));
  }
  for (const block of step.content) {
    if (block.type === "text")
      for (const piece of pieces(block.text)) out.push(chunk({ content: piece }));
  }
  calls.forEach((call, index) => {
    if (dialect === "gemini") {
      const tool = {
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: JSON.stringify(call.input) },
        ...(index === 0
          ? { extra_content: { google: { thought_signature: geminiSignature(call.id) } } }
          : {}),
      };
      out.push(chunk({ role: "assistant", tool_calls: [tool] }));
      return;
    }
    if (dialect === "object-arguments") {
      const whole = {
        index,
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.input },
      };
      out.push(chunk({ tool_calls: [whole] }));
      return;
    }
    out.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
        ],
      }),
    );
    for (const piece of pieces(JSON.stringify(call.input))) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  const finish =
    step.stopReason === "max_tokens"
      ? "length"
      : calls.length > 0 && (dialect === "openai" || dialect === "object-arguments")
        ? "tool_calls"
        : "stop";
  out.push(chunk({}, finish));
  if (dialect === "no-usage") return out;
  const usage = fillUsage(step.usage);
  out.push({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: usage.inputTokens + usage.cacheReadTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.cacheReadTokens + usage.outputTokens,
      prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
    },
  });
  return out;
}
