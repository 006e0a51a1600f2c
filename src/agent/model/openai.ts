import type { ModelTuning } from "./anthropic.js";
import type { Model, ModelPrice, ModelRequest, ModelResponse, ModelStreamEvent } from "./model.js";
import { buildChatRequest } from "./openai-request.js";
import { ChatStreamAssembler } from "./openai-stream.js";
import {
  type AttemptFailure,
  abortError,
  completeWithRetries,
  describeCause,
  type ProviderHints,
  redactSecrets,
  retryLoopOptions,
  transportFailure,
} from "./retry.js";

export interface OpenAiModelOptions extends Omit<ModelTuning, "price" | "contextWindow"> {
  /** OPENAI_API_KEY; a self-hosted server without keys gets a placeholder. */
  apiKey: string | undefined;
  /** OPENAI_BASE_URL; default OpenAI's own API. */
  baseURL?: string | undefined;
  /** The id sent to the server, without the `openai/` prefix. */
  model: string;
  /** null: the price is unknown (see Model.price). */
  price: ModelPrice | null;
  contextWindow: number;
}

type Sdk = typeof import("openai");
let sdk: Promise<Sdk> | undefined;

function loadOpenAiSdk(): Promise<Sdk> {
  sdk ??= import("openai");
  return sdk;
}

export const OPENAI_HINTS: ProviderHints = {
  api: "OpenAI-compatible API",
  auth: "check OPENAI_API_KEY",
  baseUrlVar: "OPENAI_BASE_URL",
};

type Client = InstanceType<Sdk["default"]>;

/**
 * OpenAI's chat completions, and every server that copies them (Azure's
 * v1 endpoint, vLLM, llama.cpp, Ollama), behind the `Model` contract:
 * streamed with tool-call deltas, usage from the last chunk, our own retry
 * loop. The only file that imports the openai package. Prompt caching is the
 * server's own (OpenAI caches long prefixes by itself and reports cached tokens).
 */
export function createOpenAiModel(options: OpenAiModelOptions): Model {
  let client: Client | undefined;
  const official = options.baseURL === undefined;
  const newClient = ({ default: OpenAI }: Sdk): Client =>
    new OpenAI({
      apiKey: options.apiKey ?? "no-key",
      // Explicit values, so OPENAI_ORG_ID and friends in the environment change nothing behind our back.
      organization: null,
      project: null,
      webhookSecret: null,
      baseURL: options.baseURL ?? "https://api.openai.com/v1",
      maxRetries: 0,
      logLevel: "warn",
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });

  async function attempt(
    request: ModelRequest,
    onEvent: (event: ModelStreamEvent) => void,
  ): Promise<ModelResponse | AttemptFailure> {
    const body = buildChatRequest(options.model, request, {
      tokenLimitField: official ? "max_completion_tokens" : "max_tokens",
    });
    let listenerError: { error: unknown } | undefined;
    const assembler = new ChatStreamAssembler(options.model, (event) => {
      try {
        onEvent(event);
      } catch (error) {
        listenerError ??= { error };
        throw error;
      }
    });
    const loaded = await loadOpenAiSdk();
    client ??= newClient(loaded);
    try {
      const stream = await client.chat.completions.create(
        body as Parameters<Client["chat"]["completions"]["create"]>[0] & { stream: true },
        { signal: request.signal ?? null },
      );
      for await (const chunk of stream) assembler.push(chunk);
    } catch (error) {
      if (listenerError) throw listenerError.error;
      return toFailure(loaded, error, request.signal);
    }
    if (request.signal?.aborted) throw abortError(request.signal);
    if (!assembler.complete) {
      return { kind: "connection", message: "the response stream ended before its finish reason" };
    }
    return assembler.result(
      JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length,
    );
  }

  const retry = retryLoopOptions(options, {
    redact: (text: string) => redactSecrets(text, options.apiKey ? [options.apiKey] : []),
    modelId: options.model,
    hints: OPENAI_HINTS,
  });
  loadOpenAiSdk().catch(() => {});
  return {
    id: options.model,
    spec: `openai/${options.model}`,
    contextWindow: options.contextWindow,
    price: options.price,
    complete: (request, onEvent = () => {}) =>
      completeWithRetries(request, onEvent, attempt, retry),
  };
}

function toFailure(
  { default: OpenAI }: Sdk,
  error: unknown,
  signal: AbortSignal | undefined,
): AttemptFailure {
  const transport = transportFailure(OpenAI, error, signal);
  if (transport) return transport;
  if (error instanceof OpenAI.APIError) {
    const detail = error.error as { message?: unknown } | undefined;
    const apiMessage = typeof detail?.message === "string" ? detail.message : error.message;
    if (error.status === undefined) {
      // An error object inside the stream after a 200: overload and server errors retry.
      return { kind: "stream-error", type: streamErrorType(error.type ?? error.code), apiMessage };
    }
    return {
      kind: "http",
      status: error.status,
      type: error.type ?? null,
      apiMessage,
      headers: error.headers,
    };
  }
  return { kind: "connection", message: describeCause(error) };
}

/** In-stream errors name their type freely; the ones worth a retry map onto the retry policy's names. */
function streamErrorType(type: string | null | undefined): string {
  if (!type) return "api_error";
  if (/overload|rate_limit|server_error|timeout/i.test(type)) return "overloaded_error";
  return type;
}
