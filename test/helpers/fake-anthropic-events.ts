import type { AssistantBlock } from "../../src/agent/model/model.js";
import {
  defaultStopReason,
  errorTypeForStatus,
  fillUsage,
  type ScriptError,
  type ScriptResponse,
} from "../../src/agent/model/script.js";

/** Messages API wire shapes for the fake server: whole messages and their SSE event sequence. */

export type SseEvent = { event: string; data: unknown };

function usageJson(step: ScriptResponse) {
  const usage = fillUsage(step.usage);
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
  };
}

export function messageJson(step: ScriptResponse, id: string, model: string) {
  return {
    id,
    type: "message",
    role: "assistant",
    model: step.model ?? model,
    content: step.content,
    stop_reason: step.stopReason ?? defaultStopReason(step.content),
    stop_sequence: null,
    usage: usageJson(step),
  };
}

/** The event sequence the real API sends, with text and tool JSON split over several deltas. */
export function messageEvents(step: ScriptResponse, id: string, model: string): SseEvent[] {
  const usage = usageJson(step);
  const start = {
    ...messageJson(step, id, model),
    content: [],
    stop_reason: null,
    usage: { ...usage, output_tokens: 1 },
  };
  const events: SseEvent[] = [
    { event: "message_start", data: { type: "message_start", message: start } },
    { event: "ping", data: { type: "ping" } },
  ];
  // An OpenAI-compatible server's reasoning has no Messages API form.
  anthropicBlocks(step.content).forEach((block, index) => {
    events.push({
      event: "content_block_start",
      data: { type: "content_block_start", index, content_block: emptyBlock(block) },
    });
    for (const delta of blockDeltas(block)) {
      events.push({
        event: "content_block_delta",
        data: { type: "content_block_delta", index, delta },
      });
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  const stopReason = step.stopReason ?? defaultStopReason(step.content);
  events.push(
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  );
  return events;
}

type AnthropicBlock = Exclude<AssistantBlock, { type: "reasoning" }>;

function anthropicBlocks(blocks: AssistantBlock[]): AnthropicBlock[] {
  return blocks.filter((block): block is AnthropicBlock => block.type !== "reasoning");
}

function emptyBlock(block: AnthropicBlock): unknown {
  switch (block.type) {
    case "text":
      return { type: "text", text: "" };
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "redacted_thinking":
      return block;
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: {} };
  }
}

function blockDeltas(block: AnthropicBlock): unknown[] {
  switch (block.type) {
    case "text":
      return pieces(block.text).map((text) => ({ type: "text_delta", text }));
    case "thinking":
      return [
        ...pieces(block.thinking).map((thinking) => ({ type: "thinking_delta", thinking })),
        { type: "signature_delta", signature: block.signature },
      ];
    case "redacted_thinking":
      return [];
    case "tool_use":
      return pieces(JSON.stringify(block.input)).map((partial_json) => ({
        type: "input_json_delta",
        partial_json,
      }));
  }
}

/** Splits into three pieces (fewer for tiny strings) so clients must join them. */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function sse({ event, data }: SseEvent): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function errorBody(step: ScriptError) {
  const { status, message, type } = step.error;
  return { type: "error", error: { type: type ?? errorTypeForStatus(status), message } };
}
