/**
 * The model contract the agent loop depends on. Block shapes follow the
 * Anthropic Messages API so a conversation can be sent back unmodified
 * (thinking blocks keep their signatures), but nothing here imports the SDK:
 * `models/anthropic.ts` is the only file that does.
 */

/** USD per million tokens, and the context window in tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** 5-minute cache write (the TTL `cache_control: {type: "ephemeral"}` gets). */
  cacheWrite: number;
  cacheRead: number;
  contextWindow: number;
}

export interface TextBlock {
  type: "text";
  text: string;
}

export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
  /**
   * What an OpenAI-compatible server attached to the call (its
   * `extra_content`: Gemini's thought signature), sent back with the call
   * exactly as received: Gemini 3 refuses the next request without it.
   * Anthropic's requests leave it out.
   */
  extraContent?: unknown;
}

export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/**
 * An OpenAI-compatible server's reasoning (`reasoning_content`: DeepSeek's,
 * Qwen's through vLLM), sent back to it with the tool calls it came with:
 * DeepSeek's thinking mode refuses the next request in a tool loop without
 * it. Anthropic's requests leave it out (theirs is a ThinkingBlock).
 */
export interface ReasoningBlock {
  type: "reasoning";
  text: string;
}

export type AssistantBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ReasoningBlock
  | ToolUseBlock;
export type UserBlock = TextBlock | ToolResultBlock;

export type Message =
  | { role: "user"; content: UserBlock[] }
  | { role: "assistant"; content: AssistantBlock[] };

/** JSON Schema of a tool's input, as sent to the model. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: { type: "object"; [key: string]: unknown };
}

export interface ModelRequest {
  /**
   * System prompt parts, most stable first. The model implementation places a
   * cache breakpoint after the last part (and after the tools and the latest
   * message), so the prefix stays byte-identical from turn to turn.
   */
  system: string[];
  messages: Message[];
  tools: ToolSpec[];
  maxTokens: number;
  /** Extended thinking budget in tokens; absent means thinking is off. */
  thinkingBudget?: number;
  signal?: AbortSignal;
}

/** Why a model stopped answering, in Anthropic's words (other providers' answers are mapped to them). */
export const STOP_REASONS = [
  "end_turn",
  "tool_use",
  "max_tokens",
  "stop_sequence",
  "pause_turn",
  "refusal",
] as const;

export type StopReason = (typeof STOP_REASONS)[number];

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /**
   * Counted from the text, not by the server (an OpenAI-compatible server
   * that reports no usage when it streams: LM Studio, older Ollama): about
   * four characters a token, so the cost, the cost cap and compaction still
   * work, and reports say the counts are estimates.
   */
  estimated?: true;
}

export interface ModelResponse {
  content: AssistantBlock[];
  stopReason: StopReason;
  usage: Usage;
  /** The model id that answered (for pricing). */
  model: string;
}

/** Streaming progress, for display only: the response is authoritative. */
export type ModelStreamEvent =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  | { type: "tool_use_start"; id: string; name: string }
  | { type: "retry"; attempt: number; delayMs: number; reason: string };

export interface Model {
  /** Model id sent to the API, e.g. "claude-sonnet-4-5". */
  readonly id: string;
  /** The model as the config names it ("openai/gpt-4.1"), for messages and `pricing:` keys. */
  readonly spec?: string;
  /** Context window in tokens; compaction triggers at 85% of it. */
  readonly contextWindow: number;
  /**
   * What its tokens cost. `null`: nobody knows (a self-hosted or new model
   * without `pricing:` in the config), so a run under a USD cap refuses to
   * start. Absent: priced by the id that answered, from the Anthropic table.
   */
  readonly price?: ModelPrice | null;
  /**
   * Loads what its first request needs (its SDK, the HTTP library) now: a
   * caller about to wait on something else (git) calls it, so that the
   * loading takes this thread while it would be idle. Optional; never throws.
   */
  warmUp?(): void;
  complete(
    request: ModelRequest,
    onEvent?: (event: ModelStreamEvent) => void,
  ): Promise<ModelResponse>;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    ...(a.estimated || b.estimated ? { estimated: true as const } : {}),
  };
}

/** Everything the model saw as input on one request (fresh, cached and cache-written). */
export function promptTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** Thrown for errors that retrying cannot fix (bad request, auth, permission). */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryable = false,
  ) {
    super(message);
    this.name = "ModelError";
  }
}
