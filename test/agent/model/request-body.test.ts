import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../../src/agent/model/model.js";
import { buildRequestBody } from "../../../src/agent/model/request-body.js";

const base: ModelRequest = { system: [], messages: [], tools: [], maxTokens: 100 };

describe("buildRequestBody", () => {
  it("leaves out empty tools and system, and thinking unless a budget is set", () => {
    const body = buildRequestBody("claude-haiku-4-5", {
      ...base,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
    expect(body).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 100,
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }],
        },
      ],
    });
  });

  it("puts the message breakpoint on the last block that can carry one", () => {
    const body = buildRequestBody("m", {
      ...base,
      messages: [
        {
          role: "assistant",
          content: [
            { type: "text", text: "prefill" },
            { type: "thinking", thinking: "t", signature: "s" },
          ],
        },
      ],
    });
    expect(body.messages[0]?.content).toEqual([
      { type: "text", text: "prefill", cache_control: { type: "ephemeral" } },
      { type: "thinking", thinking: "t", signature: "s" },
    ]);
  });

  it("sends a call another provider annotated without its annotation, nor that provider's reasoning", () => {
    const call = {
      type: "tool_use" as const,
      id: "g1",
      name: "read_file",
      input: { file_path: "a" },
    };
    const body = buildRequestBody("m", {
      ...base,
      messages: [
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "hmm" },
            { ...call, extraContent: { google: { thought_signature: "sig" } } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "g1", content: "x" }] },
      ],
    });
    expect(body.messages[0]?.content).toEqual([call]);
  });
});
