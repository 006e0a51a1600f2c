import type Anthropic from "@anthropic-ai/sdk";
import type { Model, ModelRequest, ModelResponse, ModelStreamEvent } from "../model.js";
import { contextWindowOf } from "../pricing.js";
import { buildRequestBody } from "./request-body.js";
import {
  type AttemptFailure,
  abortError,
  backoffDelay,
  decideRetry,
  defaultSleep,
  exhaustedError,
  isAbortError,
  nonRetryableError,
  type Sleep,
} from "./retry.js";
import { StreamAssembler } from "./stream-assembler.js";

export interface AnthropicModelOptions {
  apiKey: string;
  /** Defaults to https://api.anthropic.com; never read from the environment here. */
  baseURL?: string;
  model: string;
  /** Retries after the first attempt; default 8. */
  maxRetries?: number;
  sleep?: Sleep;
  random?: () => number;
  fetch?: typeof fetch;
  /** Cap of one backoff delay before jitter; default 30 s. */
  maxDelayMs?: number;
  /** First backoff cap; doubles per retry. Default 1 s. */
  baseDelayMs?: number;
  /** Overrides the pricing table's context window. */
  contextWindow?: number;
}

const DEFAULT_BASE_URL = "https://api.anthropic.com";

type Sdk = typeof import("@anthropic-ai/sdk");
let sdk: Promise<Sdk> | undefined;

/**
 * Loads the SDK, once. It is imported on demand rather than with this
 * module because it is a third of what the Action compiles at start: a
 * caller that knows a model request is coming calls this early, so the
 * compile happens while git and the GitHub API are being awaited.
 */
export function loadAnthropicSdk(): Promise<Sdk> {
  sdk ??= import("@anthropic-ai/sdk");
  return sdk;
}

/**
 * The Messages API behind the `Model` contract: streams every request, folds
 * the SSE events into one response, and retries transient failures itself.
 * This is the only file that imports the Anthropic SDK.
 */
export function createAnthropicModel(options: AnthropicModelOptions): Model {
  const newClient = ({ default: Anthropic }: Sdk) =>
    new Anthropic({
      apiKey: options.apiKey,
      // Explicit, so ANTHROPIC_AUTH_TOKEN in the environment cannot override the key we were given.
      authToken: null,
      baseURL: options.baseURL ?? DEFAULT_BASE_URL,
      // Our own retry loop: visible retry events, injectable clock, one policy.
      maxRetries: 0,
      // Pinned so ANTHROPIC_LOG cannot turn on request logging behind our back.
      logLevel: "warn",
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  let client: Anthropic | undefined;
  // Compiles while the caller prepares the first request; a failure shows there.
  loadAnthropicSdk().catch(() => {});
  const maxRetries = options.maxRetries ?? 8;
  const sleep = options.sleep ?? defaultSleep;
  const backoff = {
    baseDelayMs: options.baseDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    random: options.random ?? Math.random,
  };
  const redact = (text: string) => redactSecret(text, options.apiKey);

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
    client ??= newClient(loaded);
    try {
      const stream = await client.messages.create(
        { ...body, stream: true },
        { signal: request.signal ?? null },
      );
      for await (const event of stream) {
        assembler.push(event);
      }
    } catch (error) {
      if (listenerError) throw listenerError.error;
      return toFailure(loaded, error, request.signal);
    }
    // The SDK ends iteration quietly when the signal aborts mid-stream.
    if (request.signal?.aborted) throw abortError(request.signal);
    if (!assembler.complete) {
      return { kind: "connection", message: "the response stream ended before message_stop" };
    }
    return assembler.result();
  }

  return {
    id: options.model,
    contextWindow: options.contextWindow ?? contextWindowOf(options.model),
    async complete(request, onEvent = () => {}) {
      const { signal } = request;
      for (let retry = 0; ; retry++) {
        if (signal?.aborted) throw abortError(signal);
        const outcome = await attempt(request, onEvent);
        if (!("kind" in outcome)) return outcome;
        const decision = decideRetry(outcome);
        decision.reason = redact(decision.reason);
        if (!decision.retry) throw nonRetryableError(decision, options.model);
        if (retry >= maxRetries) throw exhaustedError(decision, retry + 1);
        const delayMs = backoffDelay(retry + 1, decision, backoff);
        onEvent({ type: "retry", attempt: retry + 1, delayMs, reason: decision.reason });
        try {
          await sleep(delayMs, signal);
        } catch (error) {
          if (signal?.aborted) throw abortError(signal);
          throw error;
        }
      }
    },
  };
}

function toFailure(
  { default: Anthropic }: Sdk,
  error: unknown,
  signal: AbortSignal | undefined,
): AttemptFailure {
  if (signal?.aborted) throw abortError(signal);
  if (error instanceof Anthropic.APIUserAbortError || isAbortError(error)) {
    throw error instanceof Error ? error : new DOMException("aborted", "AbortError");
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return { kind: "connection", message: describeCause(error) };
  }
  if (error instanceof Anthropic.APIError) {
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

/** "Connection error.: fetch failed: connect ECONNREFUSED 127.0.0.1:1" — the root cause is the useful part. */
function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && parts.length < 4) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.length > 0 ? parts.join(": ") : String(error);
}

function redactSecret(text: string, secret: string): string {
  return secret.length > 0 ? text.split(secret).join("[redacted]") : text;
}
