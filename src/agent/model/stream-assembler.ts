import {
  type AssistantBlock,
  type ModelResponse,
  type ModelStreamEvent,
  STOP_REASONS,
  type StopReason,
  type Usage,
} from "./model.js";

/**
 * The SSE events of a streamed Messages API response, narrowed to the fields
 * we read. Structural, so the SDK's event objects fit without importing it.
 */
export type StreamEvent =
  | {
      type: "message_start";
      message: { model: string; usage: WireUsage };
    }
  | {
      type: "content_block_start";
      index: number;
      content_block: {
        type: string;
        text?: string;
        thinking?: string;
        signature?: string;
        data?: string;
        id?: string;
        name?: string;
      };
    }
  | {
      type: "content_block_delta";
      index: number;
      delta:
        | { type: "text_delta"; text: string }
        | { type: "input_json_delta"; partial_json: string }
        | { type: "thinking_delta"; thinking: string }
        | { type: "signature_delta"; signature: string }
        | { type: "citations_delta" };
    }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason: string | null };
      usage: Partial<WireUsage>;
    }
  | { type: "message_stop" };

interface WireUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
}

type BlockDraft =
  | { kind: "text"; text: string }
  | { kind: "thinking"; thinking: string; signature: string }
  | { kind: "redacted_thinking"; data: string }
  | { kind: "tool_use"; id: string; name: string; json: string }
  /** Block types we never ask for (server tools): kept out of the response. */
  | { kind: "ignored" };

const KNOWN_STOP_REASONS = new Set<string>(STOP_REASONS);

/** Folds stream events into the final response, reporting progress as it goes. */
export class StreamAssembler {
  private readonly blocks = new Map<number, BlockDraft>();
  private model: string;
  private usage: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
  private stopReason: string | null = null;
  private stopped = false;

  constructor(
    fallbackModel: string,
    private readonly onEvent: (event: ModelStreamEvent) => void = () => {},
  ) {
    this.model = fallbackModel;
  }

  /** True once `message_stop` arrived: anything less is a cut stream. */
  get complete(): boolean {
    return this.stopped;
  }

  push(event: StreamEvent): void {
    switch (event.type) {
      case "message_start":
        this.model = event.message.model || this.model;
        this.mergeUsage(event.message.usage);
        break;
      case "content_block_start":
        this.startBlock(event.index, event.content_block);
        break;
      case "content_block_delta":
        this.applyDelta(event.index, event.delta);
        break;
      case "message_delta":
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.mergeUsage(event.usage);
        break;
      case "message_stop":
        this.stopped = true;
        break;
      case "content_block_stop":
        break;
    }
  }

  result(): ModelResponse {
    const indexes = [...this.blocks.keys()].sort((a, b) => a - b);
    const content: AssistantBlock[] = [];
    for (const index of indexes) {
      const block = this.blocks.get(index);
      if (block) {
        const finished = finishBlock(block);
        if (finished) content.push(finished);
      }
    }
    return {
      content,
      stopReason: mapStopReason(this.stopReason),
      usage: this.usage,
      model: this.model,
    };
  }

  private startBlock(
    index: number,
    block: Extract<StreamEvent, { type: "content_block_start" }>["content_block"],
  ): void {
    switch (block.type) {
      case "text":
        this.blocks.set(index, { kind: "text", text: block.text ?? "" });
        if (block.text) this.onEvent({ type: "text_delta", text: block.text });
        break;
      case "thinking":
        this.blocks.set(index, {
          kind: "thinking",
          thinking: block.thinking ?? "",
          signature: block.signature ?? "",
        });
        break;
      case "redacted_thinking":
        this.blocks.set(index, { kind: "redacted_thinking", data: block.data ?? "" });
        break;
      case "tool_use": {
        const id = block.id ?? "";
        const name = block.name ?? "";
        this.blocks.set(index, { kind: "tool_use", id, name, json: "" });
        this.onEvent({ type: "tool_use_start", id, name });
        break;
      }
      default:
        this.blocks.set(index, { kind: "ignored" });
    }
  }

  private applyDelta(
    index: number,
    delta: Extract<StreamEvent, { type: "content_block_delta" }>["delta"],
  ): void {
    const block = this.blocks.get(index);
    if (!block) return;
    if (delta.type === "text_delta" && block.kind === "text") {
      block.text += delta.text;
      this.onEvent({ type: "text_delta", text: delta.text });
    } else if (delta.type === "thinking_delta" && block.kind === "thinking") {
      block.thinking += delta.thinking;
      this.onEvent({ type: "thinking_delta", text: delta.thinking });
    } else if (delta.type === "signature_delta" && block.kind === "thinking") {
      block.signature += delta.signature;
    } else if (delta.type === "input_json_delta" && block.kind === "tool_use") {
      block.json += delta.partial_json;
    }
  }

  /** message_start carries input counts; message_delta carries cumulative totals. */
  private mergeUsage(usage: Partial<WireUsage>): void {
    this.usage = {
      inputTokens: usage.input_tokens ?? this.usage.inputTokens,
      outputTokens: usage.output_tokens ?? this.usage.outputTokens,
      cacheReadTokens: usage.cache_read_input_tokens ?? this.usage.cacheReadTokens,
      cacheWriteTokens: usage.cache_creation_input_tokens ?? this.usage.cacheWriteTokens,
    };
  }
}

function finishBlock(block: BlockDraft): AssistantBlock | undefined {
  switch (block.kind) {
    case "text":
      // The API rejects empty text blocks when the conversation is sent back.
      return block.text === "" ? undefined : { type: "text", text: block.text };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_use":
      return {
        type: "tool_use",
        id: block.id,
        name: block.name,
        input: parseToolInput(block.json),
      };
    case "ignored":
      return undefined;
  }
}

/**
 * Tool input arrives as JSON in pieces. When output was cut by max_tokens the
 * JSON can be incomplete; an empty object keeps the conversation valid to send
 * back, and the tool's own validation then tells the model what is missing.
 */
export function parseToolInput(json: string): Record<string, unknown> {
  if (json.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** "model_context_window_exceeded" means output stopped for lack of room: the same as max_tokens to the loop. */
function mapStopReason(reason: string | null): StopReason {
  if (reason === "model_context_window_exceeded") return "max_tokens";
  if (reason !== null && KNOWN_STOP_REASONS.has(reason)) return reason as StopReason;
  return "end_turn";
}
