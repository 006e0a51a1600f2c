import type Anthropic from "@anthropic-ai/sdk";
import type { BaseAnthropic } from "@anthropic-ai/sdk/client";
import type { Model, ModelPrice, ModelRequest, ModelResponse, ModelStreamEvent } from "./model.js";
import { contextWindowOf, priceOf } from "./pricing.js";
import { buildRequestBody } from "./request-body.js";
import {
  ANTHROPIC_HINTS,
  type AttemptFailure,
  abortError,
  completeWithRetries,
  describeCause,
  type ProviderHints,
  type RetryTuning,
  redactSecrets,
  retryLoopOptions,
  type SdkErrorClasses,
  transportFailure,
} from "./retry.js";
import { StreamAssembler } from "./stream-assembler.js";

/** Retry, backoff and pricing settings every provider adapter takes. */
/** Retries (default 8), backoff (1 s doubling to 30 s, jittered), sleep and randomness: see RetryTuning. */
export interface ModelTuning extends RetryTuning {
  fetch?: typeof fetch;
  /** Overrides the pricing table's context window. */
  contextWindow?: number;
  /** Overrides the pricing table: USD per million tokens (from the config's `pricing:`). */
  price?: ModelPrice;
}

export interface AnthropicModelOptions extends ModelTuning {
  apiKey: string;
  /** Defaults to https://api.anthropic.com; never read from the environment here. */
  baseURL?: string;
  model: string;
}

const DEFAULT_BASE_URL = "https://api.anthropic.com";

type Sdk = typeof import("./messages-client.js");
let sdk: Promise<Sdk> | undefined;

/**
 * Loads the SDK's Messages client (messages-client.ts), once. It is
 * imported on demand rather than with this module because it is a large
 * part of what the Action loads at start: a caller that knows a model
 * request is coming calls this early, so the loading happens while git and
 * the GitHub API are being awaited.
 */
export function loadAnthropicSdk(): Promise<Sdk> {
  sdk ??= import("./messages-client.js");
  return sdk;
}

/** The part of a Messages API client we call; Bedrock's and Vertex's clients have it too. */
export interface MessagesClient {
  messages: Pick<Anthropic["messages"], "create">;
}

export interface MessagesModelOptions extends ModelTuning {
  /** The id sent in the request (the provider's own spelling). */
  model: string;
  /** Makes the provider's client, once, on the first request. */
  newClient(sdk: Sdk): MessagesClient | Promise<MessagesClient>;
  hints: ProviderHints;
  /** Credentials to keep out of error messages. */
  secrets: readonly string[];
  /**
   * Whether the client sends with the global fetch (undici), which then
   * loads on the first request unless `warmUp` loaded it while the caller
   * waited; a client given its own fetch never needs it.
   */
  globalFetch: boolean;
}

/**
 * The Messages API behind the `Model` contract: streams every request, folds
 * the SSE events into one response, and retries transient failures itself.
 * Anthropic, Amazon Bedrock and Google Vertex all serve it; only the client
 * differs. The SDK itself is loaded through messages-client.ts only.
 */
export function createMessagesModel(options: MessagesModelOptions): Model {
  let client: Promise<MessagesClient> | undefined;
  // Compiles while the caller prepares the first request; a failure shows there.
  loadAnthropicSdk().catch(() => {});

  async function attempt(
    request: ModelRequest,
    onEvent: (event: ModelStreamEvent) => void,
  ): Promise<ModelResponse | AttemptFailure> {
    const body = buildRequestBody(options.model, request);
    // A throwing listener is a bug in the caller, not a network failure: never retry it.
    let listenerError: { error: unknown } | undefined;
    const assembler = new StreamAssembler(options.model, (event) => {
      try {
        onEvent(event);
      } catch (error) {
        listenerError ??= { error };
        throw error;
      }
    });
    const loaded = await loadAnthropicSdk();
    // Outside the try: a client that cannot be made (no region) is a setup error, not a retry.
    client ??= Promise.resolve(options.newClient(loaded));
    const ready = await client;
    try {
      const stream = await ready.messages.create(
        { ...body, stream: true },
        { signal: request.signal ?? null },
      );
      for await (const event of stream) {
        assembler.push(event);
      }
    } catch (error) {
      if (listenerError) throw listenerError.error;
      return toFailure(errorClassesOf(ready) ?? loaded.default, error, request.signal);
    }
    // The SDK ends iteration quietly when the signal aborts mid-stream.
    if (request.signal?.aborted) throw abortError(request.signal);
    if (!assembler.complete) {
      return { kind: "connection", message: "the response stream ended before message_stop" };
    }
    return assembler.result();
  }

  const retry = retryLoopOptions(options, {
    redact: (text: string) => redactSecrets(text, options.secrets),
    modelId: options.model,
    hints: options.hints,
  });
  return {
    id: options.model,
    contextWindow:
      options.contextWindow ?? options.price?.contextWindow ?? contextWindowOf(options.model),
    price: options.price ?? priceOf(options.model),
    // Node loads undici, the global fetch's library that the SDK sends with,
    // on the first use of any of its globals: 25-40 ms of the thread on Node 24.
    warmUp: () => {
      loadAnthropicSdk()
        .then(() => (options.globalFetch ? new Headers() : undefined))
        .catch(() => {});
    },
    complete: (request, onEvent = () => {}) =>
      completeWithRetries(request, onEvent, attempt, retry),
  };
}

/** Anthropic's own API. */
export function createAnthropicModel(options: AnthropicModelOptions): Model {
  const { apiKey, baseURL, fetch: customFetch, ...tuning } = options;
  return createMessagesModel({
    ...tuning,
    hints: ANTHROPIC_HINTS,
    secrets: [apiKey],
    globalFetch: !customFetch,
    newClient: ({ default: Client }) =>
      new Client({
        apiKey,
        // Explicit, so ANTHROPIC_AUTH_TOKEN in the environment cannot override the key we were given.
        authToken: null,
        baseURL: baseURL ?? DEFAULT_BASE_URL,
        // Our own retry loop: visible retry events, injectable clock, one policy.
        maxRetries: 0,
        // Pinned so ANTHROPIC_LOG cannot turn on request logging behind our back.
        logLevel: "warn",
        ...(customFetch ? { fetch: customFetch } : {}),
      }),
  });
}

/** The SDK's error classes, as each client's class carries them (BaseAnthropic's statics). */
type SdkErrors = SdkErrorClasses & { APIError: typeof BaseAnthropic.APIError };

/**
 * The error classes of the SDK copy that made this client: the Action's
 * bundle gives Bedrock's and Vertex's SDKs their own copy of Anthropic's
 * (scripts/bundle-action.mjs), whose errors are not instances of the
 * Messages client's classes. Undefined for a client that is no SDK's.
 */
function errorClassesOf(client: MessagesClient): SdkErrors | undefined {
  const classes = (client as { constructor?: Partial<SdkErrors> }).constructor;
  return typeof classes?.APIError === "function" &&
    typeof classes.APIConnectionError === "function" &&
    typeof classes.APIUserAbortError === "function"
    ? (classes as SdkErrors)
    : undefined;
}

function toFailure(
  Client: SdkErrors,
  error: unknown,
  signal: AbortSignal | undefined,
): AttemptFailure {
  const transport = transportFailure(Client, error, signal);
  if (transport) return transport;
  if (error instanceof Client.APIError) {
    if (error.status === undefined) {
      return { kind: "stream-error", type: error.type, apiMessage: error.apiMessage };
    }
    return {
      kind: "http",
      status: error.status,
      type: error.type,
      apiMessage: error.apiMessage,
      headers: error.headers,
    };
  }
  // Anything else thrown while reading the body (e.g. undici's "terminated" when
  // the socket closes mid-stream) is a broken connection: retry the request.
  return { kind: "connection", message: describeCause(error) };
}
