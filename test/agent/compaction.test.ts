import { describe, expect, it } from "vitest";
import {
  compactConversation,
  needsCompaction,
  renderForSummary,
} from "../../src/agent/compaction.js";
import type { Message, Model, ModelRequest } from "../../src/agent/model/model.js";

const conversation: Message[] = [
  { role: "user", content: [{ type: "text", text: "Fix the failing parser test" }] },
  {
    role: "assistant",
    content: [
      { type: "tool_use", id: "t1", name: "read_file", input: { file_path: "src/parser.ts" } },
    ],
  },
  {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "t1", content: "   1 | export const x = 1;" }],
  },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "private", signature: "sig-1" },
      { type: "tool_use", id: "t2", name: "run_shell", input: { command: "npm test" } },
    ],
  },
  {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "t2", content: "1 failed", is_error: true }],
  },
];

function summarisingModel(summary: string): Model & { seen: ModelRequest[] } {
  const seen: ModelRequest[] = [];
  return {
    id: "claude-sonnet-4-5",
    contextWindow: 1000,
    seen,
    async complete(request) {
      seen.push(request);
      return {
        content: [{ type: "text", text: summary }],
        stopReason: "end_turn",
        usage: { inputTokens: 500, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 },
        model: "claude-sonnet-4-5",
      };
    },
  };
}

describe("compaction", () => {
  it("triggers above 85% of the context window", () => {
    expect(needsCompaction(850, 1000)).toBe(false);
    expect(needsCompaction(851, 1000)).toBe(true);
  });

  it("keeps the task word for word, adds the summary and keeps the latest exchange unmodified", async () => {
    const model = summarisingModel("Read src/parser.ts; npm test fails in parser.");
    const result = await compactConversation(model, conversation, new AbortController().signal);
    expect(result).not.toBeNull();
    const messages = result?.messages ?? [];
    expect(messages).toHaveLength(3);
    expect(messages[0]?.content[0]).toEqual({ type: "text", text: "Fix the failing parser test" });
    expect(JSON.stringify(messages[0])).toContain("npm test fails in parser");
    expect(messages.slice(1)).toEqual(conversation.slice(-2));
    // The summariser saw the dropped middle, without tools and without private thinking.
    expect(model.seen[0]?.tools).toEqual([]);
    const sent = JSON.stringify(model.seen[0]?.messages);
    expect(sent).toContain("src/parser.ts");
    expect(sent).not.toContain("private");
  });

  it("does nothing when there is no middle to drop", async () => {
    const model = summarisingModel("x");
    expect(
      await compactConversation(model, conversation.slice(0, 3), new AbortController().signal),
    ).toBeNull();
    expect(model.seen).toHaveLength(0);
  });

  it("renders tool calls and results compactly and clips long blocks", () => {
    const text = renderForSummary([
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "x", content: "y".repeat(10_000), is_error: true },
        ],
      },
    ]);
    expect(text.startsWith("[tool result (error)]")).toBe(true);
    expect(text.length).toBeLessThan(4_200);
    expect(text).toContain("[...]");
  });
});
