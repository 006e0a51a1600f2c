import type {
  AssistantBlock,
  ModelResponse,
  ModelStreamEvent,
  StopReason,
  Usage,
} from "./model.js";
import { emptyUsage } from "./model.js";
import { parseToolInput } from "./stream-assembler.js";

/**
 * The chunks of a streamed chat completion, narrowed to the fields we read.
 * Structural, so the SDK's chunk objects fit without importing its types.
 */
export interface ChatChunk {
  model?: string;
  choices?: Array<{
    index?: number;
    delta?: {
      content?: string | null;
      /** The model's reasoning: DeepSeek's and vLLM's name for it, and OpenRouter's and Ollama's. */
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: Array<{
        /** Absent from Gemini's and Ollama's compatible streams. */
        index?: number | null;
        id?: string | null;
        /** A string by the API's contract; some llama.cpp servers send the object itself. */
        function?: { name?: string | null; arguments?: unknown } | null;
        /** Gemini's: `{ google: { thought_signature } }`, to be sent back with the call. */
        extra_content?: unknown;
      }> | null;
    } | null;
    finish_reason?: string | null;
  }>;
  usage?: {
    prompt_tokens?: number | null;
    completion_tokens?: number | null;
    prompt_tokens_details?: { cached_tokens?: number | null } | null;
  } | null;
}

type CallDelta = NonNullable<
  NonNullable<NonNullable<ChatChunk["choices"]>[number]["delta"]>["tool_calls"]
>[number];

interface CallDraft {
  id: string;
  name: string;
  json: string;
  extraContent?: unknown;
}

const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

/** About four characters a token, the usual rule for English and code. */
const CHARS_PER_TOKEN = 4;

function estimatedUsage(requestChars: number, content: AssistantBlock[]): Usage {
  const answerChars = content.reduce(
    (sum, block) =>
      sum +
      (block.type === "text" || block.type === "reasoning"
        ? block.text.length
        : block.type === "tool_use"
          ? block.name.length + JSON.stringify(block.input ?? {}).length
          : 0),
    0,
  );
  return {
    ...emptyUsage(),
    inputTokens: Math.ceil(requestChars / CHARS_PER_TOKEN),
    outputTokens: Math.ceil(answerChars / CHARS_PER_TOKEN),
    estimated: true,
  };
}

/**
 * Folds chat completion chunks into one response. Tool calls arrive as
 * deltas keyed by index: the first names the call, later ones add pieces of
 * its JSON arguments. With `include_usage`, usage comes in a last chunk
 * after the finish reason; a stream that ends before the finish reason is cut.
 */
export class ChatStreamAssembler {
  private text = "";
  private reasoning = "";
  private readonly calls = new Map<number, CallDraft>();
  private model: string;
  private finishReason: string | null = null;
  private usage: Usage | null = null;

  constructor(
    fallbackModel: string,
    private readonly onEvent: (event: ModelStreamEvent) => void = () => {},
  ) {
    this.model = fallbackModel;
  }

  /**
   * The answer ended (its finish reason came). Its usage may not: a server
   * that ignores `include_usage` (LM Studio, Ollama before 0.5.2) never
   * sends it, and result() then counts the tokens from the text.
   */
  get complete(): boolean {
    return this.finishReason !== null;
  }

  push(chunk: ChatChunk): void {
    if (chunk.model) this.model = chunk.model;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta ?? {};
      const reasoning = delta.reasoning_content || delta.reasoning;
      if (reasoning) {
        this.reasoning += reasoning;
        this.onEvent({ type: "thinking_delta", text: reasoning });
      }
      if (delta.content) {
        this.text += delta.content;
        this.onEvent({ type: "text_delta", text: delta.content });
      }
      for (const call of delta.tool_calls ?? []) this.applyCall(call);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    if (chunk.usage) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      // prompt_tokens counts the cached ones too; we keep fresh and cached apart, as Anthropic does.
      this.usage = {
        inputTokens: Math.max(0, (chunk.usage.prompt_tokens ?? 0) - cached),
        outputTokens: chunk.usage.completion_tokens ?? 0,
        cacheReadTokens: cached,
        cacheWriteTokens: 0,
      };
    }
  }

  /** `requestChars`: the size of what was sent, for a usage the server did not report. */
  result(requestChars: number): ModelResponse {
    const content: AssistantBlock[] = [];
    if (this.reasoning !== "") content.push({ type: "reasoning", text: this.reasoning });
    if (this.text !== "") content.push({ type: "text", text: this.text });
    for (const index of [...this.calls.keys()].sort((a, b) => a - b)) {
      const call = this.calls.get(index) as CallDraft;
      content.push({
        type: "tool_use",
        id: call.id,
        name: call.name,
        input: parseToolInput(call.json),
        ...(call.extraContent !== undefined ? { extraContent: call.extraContent } : {}),
      });
    }
    const hasCalls = this.calls.size > 0;
    const mapped = STOP_REASONS[this.finishReason ?? ""] ?? "end_turn";
    return {
      content,
      // Some servers say "stop" even when they called tools; the calls decide.
      stopReason: hasCalls && mapped === "end_turn" ? "tool_use" : mapped,
      usage: this.usage ?? estimatedUsage(requestChars, content),
      model: this.model,
    };
  }

  private applyCall(delta: CallDelta): void {
    const index = this.slotOf(delta);
    let call = this.calls.get(index);
    if (!call) {
      call = { id: delta.id || `call_${index}`, name: "", json: "" };
      this.calls.set(index, call);
    }
    if (delta.extra_content !== undefined && delta.extra_content !== null)
      call.extraContent = delta.extra_content;
    // The name comes whole in the call's first delta; some servers repeat it later.
    if (delta.function?.name && call.name === "") {
      call.name = delta.function.name;
      this.onEvent({ type: "tool_use_start", id: call.id, name: call.name });
    }
    const args = delta.function?.arguments;
    if (typeof args === "string") call.json += args;
    // llama-server (llama.cpp #20198) has sent the arguments as the JSON object itself.
    else if (args && typeof args === "object") call.json += JSON.stringify(args);
  }

  /**
   * The call a delta belongs to. OpenAI numbers them (`index`); Gemini's
   * and Ollama's compatible streams do not, and send each call whole with
   * its id: a new id is the next call, no id goes on the last one.
   */
  private slotOf(delta: CallDelta): number {
    if (typeof delta.index === "number") return delta.index;
    const slots = [...this.calls.keys()];
    if (delta.id) {
      const known = slots.find((slot) => this.calls.get(slot)?.id === delta.id);
      if (known !== undefined) return known;
      return slots.length === 0 ? 0 : Math.max(...slots) + 1;
    }
    return slots.length === 0 ? 0 : Math.max(...slots);
  }
}
