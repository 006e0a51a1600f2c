import type { Message, ModelRequest } from "./model.js";

/**
 * A request in the chat completions shape (plain JSON, no SDK types). The
 * conversation is kept in Anthropic's block shape everywhere else; here
 * tool_use blocks become `tool_calls`, tool_result blocks `tool` messages
 * (which must follow the assistant message that called them, so they come
 * before any text of the same user turn), and thinking blocks are dropped:
 * another provider cannot verify their signatures.
 */

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      reasoning_content?: string;
      tool_calls?: Array<{
        id: string;
        type: "function";
        function: { name: string; arguments: string };
        extra_content?: unknown;
      }>;
    }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: Array<{
    type: "function";
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }>;
  stream: true;
  /** Usage arrives in a last chunk with no choices. */
  stream_options: { include_usage: true };
  max_tokens?: number;
  max_completion_tokens?: number;
}

export interface ChatRequestOptions {
  /**
   * OpenAI's own API wants `max_completion_tokens` (reasoning models refuse
   * `max_tokens`); servers that copy the API (vLLM, llama.cpp, Ollama) know
   * `max_tokens` best.
   */
  tokenLimitField: "max_tokens" | "max_completion_tokens";
}

export function buildChatRequest(
  modelId: string,
  request: ModelRequest,
  options: ChatRequestOptions,
): ChatRequest {
  const messages: ChatMessage[] = [];
  if (request.system.length > 0) {
    messages.push({ role: "system", content: request.system.join("\n\n") });
  }
  for (const message of request.messages) messages.push(...toChatMessages(message));
  const body: ChatRequest = {
    model: modelId,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    [options.tokenLimitField]: request.maxTokens,
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    }));
  }
  return body;
}

function toChatMessages(message: Message): ChatMessage[] {
  if (message.role === "assistant") {
    const text = message.content
      .flatMap((block) => (block.type === "text" ? [block.text] : []))
      .join("\n");
    const calls = message.content.flatMap((block) =>
      block.type === "tool_use"
        ? [
            {
              id: block.id,
              type: "function" as const,
              function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
              ...(block.extraContent !== undefined ? { extra_content: block.extraContent } : {}),
            },
          ]
        : [],
    );
    // Back with the calls it led to, as DeepSeek's thinking mode requires
    // (and only there: its older reasoner refused it anywhere else).
    const reasoning = message.content
      .flatMap((block) => (block.type === "reasoning" ? [block.text] : []))
      .join("");
    return [
      calls.length > 0
        ? {
            role: "assistant",
            content: text === "" ? null : text,
            ...(reasoning !== "" ? { reasoning_content: reasoning } : {}),
            tool_calls: calls,
          }
        : { role: "assistant", content: text },
    ];
  }
  const out: ChatMessage[] = [];
  const texts: string[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      const content = block.is_error ? `Error: ${block.content}` : block.content;
      out.push({ role: "tool", tool_call_id: block.tool_use_id, content });
    } else {
      texts.push(block.text);
    }
  }
  if (texts.length > 0) out.push({ role: "user", content: texts.join("\n\n") });
  return out;
}
