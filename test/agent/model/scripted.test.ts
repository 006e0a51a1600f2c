import { describe, expect, it } from "vitest";
import type { ModelRequest, ModelStreamEvent } from "../../../src/agent/model/model.js";
import { ModelError } from "../../../src/agent/model/model.js";
import { createScriptedModel, parseScript } from "../../../src/agent/model/scripted.js";
import { callTool, cut, httpError, reply, text, toolUse } from "../../helpers/model-script.js";

function request(word: string, signal?: AbortSignal): ModelRequest {
  const base: ModelRequest = {
    system: ["sys"],
    messages: [{ role: "user", content: [text(word)] }],
    tools: [],
    maxTokens: 512,
  };
  return signal ? { ...base, signal } : base;
}

describe("createScriptedModel", () => {
  it("answers steps in order and fills stop reason, usage and model id", async () => {
    const model = createScriptedModel(
      [callTool("read_file", { file_path: "a.ts" }, { id: "t1" }), reply("done")],
      {
        id: "claude-test",
        contextWindow: 1000,
      },
    );
    expect(model.id).toBe("claude-test");
    expect(model.contextWindow).toBe(1000);

    const first = await model.complete(request("one"));
    expect(first).toEqual({
      content: [toolUse("read_file", { file_path: "a.ts" }, "t1")],
      stopReason: "tool_use",
      usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: "claude-test",
    });
    const second = await model.complete(request("two"));
    expect(second.stopReason).toBe("end_turn");
    expect(model.remaining).toBe(0);
  });

  it("records deep copies of requests without the signal", async () => {
    const model = createScriptedModel([reply("a")]);
    const sent = request("original", new AbortController().signal);
    await model.complete(sent);
    const firstMessage = sent.messages[0];
    if (firstMessage?.role === "user") firstMessage.content.push(text("mutated later"));

    expect(model.requests).toEqual([
      {
        system: ["sys"],
        messages: [{ role: "user", content: [text("original")] }],
        tools: [],
        maxTokens: 512,
      },
    ]);
    expect(model.requests[0]).not.toHaveProperty("signal");
  });

  it("lets a function step answer from the request", async () => {
    const model = createScriptedModel([
      (req) => reply(`you said ${JSON.stringify(req.messages[0]?.content[0])}`),
    ]);
    const response = await model.complete(request("ping"));
    expect(response.content).toEqual([text('you said {"type":"text","text":"ping"}')]);
  });

  it("streams text and tool starts through onEvent", async () => {
    const model = createScriptedModel([
      callTool("grep_search", { pattern: "x" }, { say: "Searching.", id: "t9" }),
    ]);
    const events: ModelStreamEvent[] = [];
    await model.complete(request("go"), (event) => events.push(event));
    expect(events).toEqual([
      { type: "text_delta", text: "Searching." },
      { type: "tool_use_start", id: "t9", name: "grep_search" },
    ]);
  });

  it("throws ModelError for error steps, retryable for overload and cut streams", async () => {
    const model = createScriptedModel([
      httpError(401, "bad key"),
      httpError(529, "Overloaded"),
      cut(),
    ]);
    await expect(model.complete(request("a"))).rejects.toMatchObject({
      status: 401,
      retryable: false,
    });
    await expect(model.complete(request("b"))).rejects.toMatchObject({
      status: 529,
      retryable: true,
    });
    await expect(model.complete(request("c"))).rejects.toBeInstanceOf(ModelError);
  });

  it("fails clearly when the script runs out", async () => {
    const model = createScriptedModel([reply("only one")]);
    await model.complete(request("a"));
    await expect(model.complete(request("b"))).rejects.toThrow(
      /no step left for request #2 \(script had 1 steps\)/,
    );
  });

  it("refuses an aborted request", async () => {
    const model = createScriptedModel([reply("never")]);
    await expect(model.complete(request("a", AbortSignal.abort()))).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(model.remaining).toBe(1);
  });
});

describe("parseScript", () => {
  it("accepts an array or { steps } and replays a recorded response as-is", async () => {
    const recorded = {
      content: [
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "tool_use", id: "t1", name: "run_shell", input: { command: "npm test" } },
      ],
      stopReason: "tool_use",
      usage: { inputTokens: 5, outputTokens: 6, cacheReadTokens: 7, cacheWriteTokens: 8 },
      model: "claude-sonnet-4-6",
    };
    const steps = parseScript({
      steps: [recorded, { error: { status: 529, message: "Overloaded" } }],
    });
    expect(parseScript([recorded])).toEqual([recorded]);

    const model = createScriptedModel(steps);
    expect(await model.complete(request("x"))).toEqual(recorded);
    await expect(model.complete(request("y"))).rejects.toMatchObject({ status: 529 });
  });

  it("names the bad field in a broken script", () => {
    expect(() =>
      parseScript([
        { content: [{ type: "tool_use", id: "t1", name: "x", input: "not an object" }] },
      ]),
    ).toThrow(/Invalid model script[\s\S]*input/);
    expect(() => parseScript({ nope: true })).toThrow(/Invalid model script/);
  });
});
