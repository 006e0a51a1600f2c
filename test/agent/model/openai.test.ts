import { afterEach, describe, expect, it } from "vitest";
import type {
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
} from "../../../src/agent/model/model.js";
import { ModelError } from "../../../src/agent/model/model.js";
import { createOpenAiModel } from "../../../src/agent/model/openai.js";
import type { ScriptData } from "../../../src/agent/model/script.js";
import { renderUsage } from "../../../src/report/summary.js";
import {
  type ChatDialect,
  type FakeOpenAi,
  geminiSignature,
  startFakeOpenAi,
} from "../../helpers/fake-openai-server.js";
import { httpError, text, toolUse, turn } from "../../helpers/model-script.js";

const KEY = "sk-proj-test-key-that-must-not-leak";

let server: FakeOpenAi | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(
  steps: ScriptData[],
  options: { maxRetries?: number } = {},
  dialect: ChatDialect = "openai",
) {
  server = await startFakeOpenAi(steps, dialect);
  const sleeps: number[] = [];
  const model = createOpenAiModel({
    apiKey: KEY,
    baseURL: `${server.url}/v1`,
    model: "qwen3-coder",
    price: null,
    contextWindow: 32_000,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return { server, model, sleeps };
}

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  system: ["You are patchwright.", "Use pnpm."],
  messages: [{ role: "user", content: [{ type: "text", text: "fix it" }] }],
  tools: [
    {
      name: "read_file",
      description: "Read a file",
      input_schema: { type: "object", properties: { file_path: { type: "string" } } },
    },
  ],
  maxTokens: 2048,
  ...extra,
});

/** The next request: the first answer, then a result for each of its tool calls. */
async function answerCalls(model: Model, first: ModelResponse): Promise<void> {
  const results = first.content.flatMap((block) =>
    block.type === "tool_use"
      ? [{ type: "tool_result" as const, tool_use_id: block.id, content: "x" }]
      : [],
  );
  await model.complete(
    request({
      messages: [
        ...request().messages,
        { role: "assistant", content: first.content },
        { role: "user", content: results },
      ],
    }),
  );
}

describe("createOpenAiModel", () => {
  it("streams text and tool-call deltas into blocks, with usage from the last chunk", async () => {
    const { model, server } = await setup([
      turn(
        [
          text("Reading the parser first."),
          toolUse("read_file", { file_path: "src/parser.ts" }, "call_1"),
          toolUse("read_file", { file_path: "src/b.ts" }, "call_2"),
        ],
        undefined,
        { inputTokens: 300, outputTokens: 40, cacheReadTokens: 700 },
      ),
    ]);
    const events: ModelStreamEvent[] = [];
    const response = await model.complete(request(), (event) => events.push(event));
    expect(response.content).toEqual([
      { type: "text", text: "Reading the parser first." },
      { type: "tool_use", id: "call_1", name: "read_file", input: { file_path: "src/parser.ts" } },
      { type: "tool_use", id: "call_2", name: "read_file", input: { file_path: "src/b.ts" } },
    ]);
    expect(response.stopReason).toBe("tool_use");
    // Cached tokens are inside prompt_tokens on the wire; kept apart here.
    expect(response.usage).toEqual({
      inputTokens: 300,
      outputTokens: 40,
      cacheReadTokens: 700,
      cacheWriteTokens: 0,
    });
    expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(1);
    expect(
      events.filter((e) => e.type === "tool_use_start").map((e) => (e as { id: string }).id),
    ).toEqual(["call_1", "call_2"]);
    const body = server.requests[0]?.body as Record<string, unknown>;
    // A compatible server gets max_tokens; the system prompt is one system message.
    expect(body).toMatchObject({
      model: "qwen3-coder",
      max_tokens: 2048,
      messages: [
        { role: "system", content: "You are patchwright.\n\nUse pnpm." },
        { role: "user", content: "fix it" },
      ],
    });
  });

  it("retries 429 and 5xx with backoff (honouring retry-after-ms), then succeeds", async () => {
    const { model, server, sleeps } = await setup([
      httpError(429, "Rate limit reached", { retryAfterMs: 1234 }),
      httpError(503, "upstream overloaded"),
      turn([text("ok")]),
    ]);
    const retries: ModelStreamEvent[] = [];
    const response = await model.complete(request(), (e) => e.type === "retry" && retries.push(e));
    expect(response.content).toEqual([{ type: "text", text: "ok" }]);
    expect(server.requests).toHaveLength(3);
    expect(sleeps[0]).toBe(1234);
    expect(retries.map((e) => (e as { reason: string }).reason)).toEqual([
      expect.stringContaining("429"),
      expect.stringContaining("503"),
    ]);
  });

  it("retries a stream cut before its finish reason", async () => {
    const { model, server } = await setup([
      { cut: { afterEvents: 2 } },
      turn([text("whole answer")]),
    ]);
    const response = await model.complete(request());
    expect(response.content).toEqual([{ type: "text", text: "whole answer" }]);
    expect(server.requests).toHaveLength(2);
  });

  it("keeps the reasoning a server streams and sends it back with the tool calls it led to", async () => {
    const { model, server } = await setup([
      turn([
        { type: "reasoning", text: "The parser is the likely culprit." },
        toolUse("read_file", { file_path: "src/parser.ts" }, "d1"),
      ]),
      turn([{ type: "reasoning", text: "Fixed." }, text("done")]),
      turn([text("ok")]),
    ]);
    const events: ModelStreamEvent[] = [];
    const first = await model.complete(request(), (event) => events.push(event));
    expect(first.content).toEqual([
      { type: "reasoning", text: "The parser is the likely culprit." },
      { type: "tool_use", id: "d1", name: "read_file", input: { file_path: "src/parser.ts" } },
    ]);
    expect(events.some((e) => e.type === "thinking_delta")).toBe(true);
    const toolTurn = [
      ...request().messages,
      { role: "assistant" as const, content: first.content },
      {
        role: "user" as const,
        content: [{ type: "tool_result" as const, tool_use_id: "d1", content: "x" }],
      },
    ];
    const second = await model.complete(request({ messages: toolTurn }));
    await model.complete(
      request({
        messages: [
          ...toolTurn,
          { role: "assistant", content: second.content },
          { role: "user", content: [{ type: "text", text: "and the tests?" }] },
        ],
      }),
    );
    // DeepSeek's thinking mode refuses a tool loop without its reasoning; its
    // older reasoner refused reasoning anywhere else.
    const sent = server.requests[2]?.body as { messages: Array<Record<string, unknown>> };
    expect(sent.messages[2]).toMatchObject({
      role: "assistant",
      content: null,
      reasoning_content: "The parser is the likely culprit.",
    });
    expect(sent.messages[4]).toEqual({ role: "assistant", content: "done" });
  });

  it("takes a whole answer from a server that never reports usage, counting its tokens from the text", async () => {
    const { model, server } = await setup(
      [turn([text("x".repeat(400)), toolUse("read_file", { file_path: "a.ts" }, "c1")])],
      {},
      "no-usage",
    );
    const response = await model.complete(request());
    expect(server.requests).toHaveLength(1);
    expect(response.stopReason).toBe("tool_use");
    const sent = server.requests[0]?.body as { messages: unknown; tools: unknown };
    const chars = JSON.stringify(sent.messages).length + JSON.stringify(sent.tools).length;
    expect(response.usage).toEqual({
      inputTokens: Math.ceil(chars / 4),
      outputTokens: Math.ceil((400 + "read_file".length + '{"file_path":"a.ts"}'.length) / 4),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      estimated: true,
    });
    expect(
      renderUsage({
        turns: 1,
        durationMs: 1000,
        usage: response.usage,
        costUsd: 0,
        model: "m",
        stopReason: "end_turn",
      }),
    ).toContain("(estimated from the text: the model's server reports no usage)");
  });

  it("retries an error that arrives inside a 200 stream, and not an invalid request there", async () => {
    const { model, server } = await setup([
      httpError(500, "The server had an error while processing your request", { inStream: true }),
      turn([text("recovered")]),
    ]);
    expect((await model.complete(request())).content).toEqual([
      { type: "text", text: "recovered" },
    ]);
    expect(server.requests).toHaveLength(2);
    await server.close();
    const refused = await setup([
      httpError(400, "context length exceeded", { inStream: true, type: "invalid_request_error" }),
    ]);
    await expect(refused.model.complete(request())).rejects.toThrow(
      /invalid_request_error during streaming: context length exceeded/,
    );
    expect(refused.server.requests).toHaveLength(1);
  });

  it("never retries a 4xx, and says what to check without the key", async () => {
    const { model, server } = await setup([
      httpError(401, `Incorrect API key provided: ${KEY}`),
      turn([text("unused")]),
    ]);
    const error = await model.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toMatch(
      /^OpenAI-compatible API error \(401.*check OPENAI_API_KEY/,
    );
    expect((error as ModelError).message).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it("gives up after maxRetries with the last reason", async () => {
    const { model, server } = await setup(
      [httpError(500, "boom"), httpError(500, "boom"), httpError(500, "boom")],
      { maxRetries: 2 },
    );
    await expect(model.complete(request())).rejects.toThrow(
      /still failing after 3 attempts \(last: 500/,
    );
    expect(server.requests).toHaveLength(3);
  });

  it("stops at once when aborted", async () => {
    const { model } = await setup([turn([text("unused")])]);
    const controller = new AbortController();
    controller.abort(new Error("stop now"));
    await expect(model.complete(request({ signal: controller.signal }))).rejects.toThrow(
      "stop now",
    );
  });

  it("takes Gemini's calls, unnumbered and whole, and sends each back with the thought signature it came with", async () => {
    const { model, server } = await setup(
      [
        turn([
          text("Two files."),
          toolUse("read_file", { file_path: "a.ts" }, "g1"),
          toolUse("read_file", { file_path: "b.ts" }, "g2"),
        ]),
        turn([text("done")]),
      ],
      {},
      "gemini",
    );
    const first = await model.complete(request());
    expect(first.content).toEqual([
      { type: "text", text: "Two files." },
      {
        type: "tool_use",
        id: "g1",
        name: "read_file",
        input: { file_path: "a.ts" },
        extraContent: { google: { thought_signature: geminiSignature("g1") } },
      },
      { type: "tool_use", id: "g2", name: "read_file", input: { file_path: "b.ts" } },
    ]);
    // Gemini streams finish_reason "stop" after its calls: the calls decide.
    expect(first.stopReason).toBe("tool_use");
    await answerCalls(model, first);
    const body = server.requests[1]?.body as { messages: Array<Record<string, unknown>> };
    expect(body.messages[2]?.tool_calls).toEqual([
      {
        id: "g1",
        type: "function",
        function: { name: "read_file", arguments: '{"file_path":"a.ts"}' },
        extra_content: { google: { thought_signature: geminiSignature("g1") } },
      },
      {
        id: "g2",
        type: "function",
        function: { name: "read_file", arguments: '{"file_path":"b.ts"}' },
      },
    ]);
  });

  it("reads a call whose arguments come as the object itself, and sends them back as a string", async () => {
    const input = { file_path: "src/a.ts", limit: 20, flags: ["x"] };
    const { model, server } = await setup(
      [
        turn([toolUse("read_file", input, "l1"), toolUse("grep", { pattern: "add" }, "l2")]),
        turn([text("done")]),
      ],
      {},
      "object-arguments",
    );
    const first = await model.complete(request());
    expect(first.content).toEqual([
      { type: "tool_use", id: "l1", name: "read_file", input },
      { type: "tool_use", id: "l2", name: "grep", input: { pattern: "add" } },
    ]);
    await answerCalls(model, first);
    const body = server.requests[1]?.body as { messages: Array<Record<string, unknown>> };
    expect(body.messages[2]?.tool_calls).toEqual([
      {
        id: "l1",
        type: "function",
        function: { name: "read_file", arguments: JSON.stringify(input) },
      },
      { id: "l2", type: "function", function: { name: "grep", arguments: '{"pattern":"add"}' } },
    ]);
  });

  it("sends the conversation back in OpenAI's shape: tool calls, then tool results before new text", async () => {
    const { model, server } = await setup([turn([text("done")])]);
    await model.complete(
      request({
        messages: [
          { role: "user", content: [{ type: "text", text: "fix it" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "hmm", signature: "s" },
              toolUse("read_file", { file_path: "a" }, "c1"),
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "c1", content: "nope", is_error: true },
              { type: "text", text: "go on" },
            ],
          },
        ],
      }),
    );
    const body = server.requests[0]?.body as { messages: unknown[] };
    expect(body.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "read_file", arguments: '{"file_path":"a"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "Error: nope" },
      { role: "user", content: "go on" },
    ]);
  });
});
