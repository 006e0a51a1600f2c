import type {
  AssistantBlock,
  Message,
  ModelRequest,
  ReasoningBlock,
  ToolSpec,
  UserBlock,
} from "./model.js";

/** The Messages API request body we send, as plain JSON (no SDK types here). */

export interface CacheControl {
  type: "ephemeral";
}

type Cacheable<T> = T & { cache_control?: CacheControl };

/** What the Messages API takes: every block but another provider's reasoning. */
export type WireBlock = Cacheable<UserBlock | Exclude<AssistantBlock, ReasoningBlock>>;
export type WireMessage =
  | { role: "user"; content: WireBlock[] }
  | { role: "assistant"; content: WireBlock[] };
export type WireTool = Cacheable<ToolSpec>;
export type WireSystemBlock = Cacheable<{ type: "text"; text: string }>;

export interface WireRequest {
  model: string;
  max_tokens: number;
  messages: WireMessage[];
  system?: WireSystemBlock[];
  tools?: WireTool[];
  thinking?: { type: "enabled"; budget_tokens: number };
}

const EPHEMERAL: CacheControl = { type: "ephemeral" };

/**
 * Builds the request body with three cache breakpoints (the API allows four):
 * after the last tool, after the last system block and on the last block of
 * the last message. Tools, system and the conversation so far then form a
 * prefix that is byte-identical on the next turn, so each turn pays full price
 * only for what is new. The caller's request is never mutated.
 */
export function buildRequestBody(modelId: string, request: ModelRequest): WireRequest {
  const body: WireRequest = {
    model: modelId,
    max_tokens: request.maxTokens,
    messages: request.messages.map(copyMessage),
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({ ...tool }));
    markLast(body.tools);
  }
  if (request.system.length > 0) {
    body.system = request.system.map((text) => ({ type: "text", text }));
    markLast(body.system);
  }
  const lastMessage = body.messages.at(-1);
  if (lastMessage) markLastCacheable(lastMessage.content);
  if (request.thinkingBudget !== undefined) {
    body.thinking = { type: "enabled", budget_tokens: request.thinkingBudget };
  }
  return body;
}

/**
 * Shallow block copies: thinking blocks keep their exact text and
 * signature. Another provider's reasoning, and the annotation its server
 * put on a call (extraContent), stay out: the Messages API refuses what it
 * does not know.
 */
function copyMessage(message: Message): WireMessage {
  if (message.role === "user") {
    return { role: "user", content: message.content.map((block) => ({ ...block })) };
  }
  return {
    role: "assistant",
    content: message.content.flatMap((block): WireBlock[] => {
      if (block.type === "reasoning") return [];
      if (block.type !== "tool_use") return [{ ...block }];
      const { extraContent: _, ...call } = block;
      return [call];
    }),
  };
}

function markLast(items: Array<{ cache_control?: CacheControl }>): void {
  const last = items.at(-1);
  if (last) last.cache_control = EPHEMERAL;
}

/** Thinking blocks cannot carry cache_control, so the breakpoint goes on the last block that can. */
function markLastCacheable(blocks: WireBlock[]): void {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i];
    if (block && block.type !== "thinking" && block.type !== "redacted_thinking") {
      block.cache_control = EPHEMERAL;
      return;
    }
  }
}
