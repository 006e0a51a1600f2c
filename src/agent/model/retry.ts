import { setTimeout as delay } from "node:timers/promises";
import { causeMessages } from "../../error-message.js";
import { findNetworkTrouble } from "../../sandbox/network-trouble.js";
import { createSecretDetector } from "../../secrets/detector.js";
import {
  ModelError,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
} from "./model.js";

/**
 * Retry policy for model calls, kept apart from the SDK so it can be read and
 * tested on its own. We retry ourselves (the SDK runs with maxRetries: 0) so
 * the loop sees each retry as an event and tests can inject the clock.
 */

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** What went wrong on one attempt, independent of the SDK's error classes. */
export type AttemptFailure =
  | {
      kind: "http";
      status: number;
      apiMessage: string | null;
      type: string | null;
      headers: { get(name: string): string | null } | undefined;
    }
  /** An SSE `error` event after a 200 (overload shows up this way mid-stream). */
  | { kind: "stream-error"; type: string | null; apiMessage: string | null }
  /** No response, or the response stopped before `message_stop`. */
  | { kind: "connection"; message: string };

export interface RetryDecision {
  retry: boolean;
  /** Short text for the retry event and the final error. */
  reason: string;
  status?: number;
  /** Server-requested wait, from `retry-after-ms` or `retry-after`. */
  retryAfterMs?: number;
  /** What to do, for a failure before any answer that no retry can fix. */
  advice?: string;
}

const RETRYABLE_STREAM_TYPES = new Set(["overloaded_error", "api_error", "timeout_error"]);

export function decideRetry(failure: AttemptFailure): RetryDecision {
  switch (failure.kind) {
    case "connection": {
      const reason = `connection error: ${failure.message}`;
      const advice = lastingConnectionFailure(failure.message);
      return advice ? { retry: false, reason, advice } : { retry: true, reason };
    }
    case "stream-error": {
      const type = failure.type ?? "unknown_error";
      return {
        retry: RETRYABLE_STREAM_TYPES.has(type),
        reason: `${type} during streaming${failure.apiMessage ? `: ${failure.apiMessage}` : ""}`,
      };
    }
    case "http": {
      const retryAfterMs = parseRetryAfter(failure.headers);
      // Rate limits, overload (529) and other 5xx are retried, unless the server
      // says outright that a retry cannot help. Any other 4xx (408 and 409 too)
      // is never sent again, whatever x-should-retry says: the error and its
      // advice reach the user at once instead of after minutes of backoff.
      const transient = failure.status === 429 || failure.status >= 500;
      const decision: RetryDecision = {
        retry: transient && failure.headers?.get("x-should-retry") !== "false",
        reason: `${failure.status} ${failure.type ?? "error"}${failure.apiMessage ? `: ${failure.apiMessage}` : ""}`,
        status: failure.status,
      };
      if (retryAfterMs !== undefined) decision.retryAfterMs = retryAfterMs;
      return decision;
    }
  }
}

/**
 * A connection that fails the same way however often it is tried: a TLS
 * certificate nobody here trusts (a network that inspects HTTPS with its
 * own CA), a proxy asking for a password, a port fetch never connects to.
 * Retried, each cost nine attempts and over a minute of backoff before the
 * user heard of it, and then only "check the network connection".
 */
function lastingConnectionFailure(message: string): string | undefined {
  if (/\bbad port\b/i.test(message))
    return "fetch never connects to this port (browsers block it too); serve the endpoint on another port.";
  const trouble = findNetworkTrouble(message);
  if (trouble?.kind === "tls")
    return `The endpoint's TLS certificate is not trusted here (${trouble.code}). If this network inspects HTTPS, trust its CA where patchwright runs (NODE_EXTRA_CA_CERTS; see "Company networks" in the README).`;
  if (trouble?.kind === "proxy-auth")
    return `The proxy asks for a password (${trouble.code}); check the user and password in HTTPS_PROXY.`;
  return undefined;
}

/** `retry-after-ms` (milliseconds) wins over `retry-after` (seconds, or an HTTP date). */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  now: () => number = Date.now,
): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after");
  if (raw === null) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

/** A server may ask for a long wait; beyond this we would rather fail than hang a job. */
const MAX_RETRY_AFTER_MS = 10 * 60 * 1000;

export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  random: () => number;
}

/**
 * Exponential backoff with full jitter (uniform in [0, cap]) so many clients
 * hitting the same overload spread out; a server's retry-after wins.
 */
export function backoffDelay(
  retry: number,
  decision: RetryDecision,
  options: BackoffOptions,
): number {
  if (decision.retryAfterMs !== undefined) {
    return Math.min(decision.retryAfterMs, MAX_RETRY_AFTER_MS);
  }
  const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(options.random() * cap);
}

export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException(
    typeof reason === "string" ? reason : "The model request was aborted",
    "AbortError",
  );
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

export const defaultSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, signal ? { signal } : {});
};

/** How a provider's errors are told to the user: its name and where its settings come from. */
export interface ProviderHints {
  /** e.g. "Anthropic API", "Amazon Bedrock". */
  api: string;
  /** What to check when authentication fails. */
  auth: string;
  /** The variable that points at another endpoint, named when one cannot be reached. */
  baseUrlVar: string;
}

export const ANTHROPIC_HINTS: ProviderHints = {
  api: "Anthropic API",
  auth: "check ANTHROPIC_API_KEY",
  baseUrlVar: "ANTHROPIC_BASE_URL",
};

/** Tells the user what to do about an error retrying cannot fix. */
export function nonRetryableError(
  decision: RetryDecision,
  modelId: string,
  hints: ProviderHints = ANTHROPIC_HINTS,
): ModelError {
  const { status, reason } = decision;
  const advice: Record<number, string> = {
    400: `The API rejected the request as invalid; check the model options (model "${modelId}", thinking budget, max tokens) or report this as a bug.`,
    401: `Authentication failed; ${hints.auth}.`,
    402: `Billing problem on the ${hints.api} account; check the account's credit balance.`,
    403: `The credentials may not use model "${modelId}" or this feature; check their permissions (${hints.auth}).`,
    404: `Model "${modelId}" was not found; check the model name (and ${hints.baseUrlVar} if you set one).`,
    413: "The request is too large for the API; reduce the conversation or tool output size.",
  };
  const hint =
    decision.advice ?? ((status !== undefined && advice[status]) || "The API refused the request.");
  return new ModelError(`${hints.api} error (${reason}). ${hint}`, status, false);
}

export function exhaustedError(
  decision: RetryDecision,
  attempts: number,
  hints: ProviderHints = ANTHROPIC_HINTS,
): ModelError {
  const hint =
    decision.status === undefined
      ? `Check the network connection (and ${hints.baseUrlVar} if you set one), then try again.`
      : "Try again later.";
  return new ModelError(
    `${hints.api} still failing after ${attempts} attempts (last: ${decision.reason}). ${hint}`,
    decision.status,
    true,
  );
}

export interface RetryLoopOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  sleep: Sleep;
  backoff: BackoffOptions;
  /** Removes the provider's credentials from error text. */
  redact: (text: string) => string;
  modelId: string;
  hints: ProviderHints;
}

/** The tuning knobs every provider's adapter takes (see ModelTuning). */
export interface RetryTuning {
  maxRetries?: number | undefined;
  sleep?: Sleep | undefined;
  random?: (() => number) | undefined;
  maxDelayMs?: number | undefined;
  baseDelayMs?: number | undefined;
}

/** The retry loop's settings from an adapter's tuning: 8 retries, 1 s doubling to 30 s, jittered. */
export function retryLoopOptions(
  tuning: RetryTuning,
  provider: Pick<RetryLoopOptions, "redact" | "modelId" | "hints">,
): RetryLoopOptions {
  return {
    maxRetries: tuning.maxRetries ?? 8,
    sleep: tuning.sleep ?? defaultSleep,
    backoff: {
      baseDelayMs: tuning.baseDelayMs ?? 1000,
      maxDelayMs: tuning.maxDelayMs ?? 30_000,
      random: tuning.random ?? Math.random,
    },
    ...provider,
  };
}

/**
 * One request with every provider's retry policy: an attempt either answers
 * or says what failed; transient failures are retried with backoff (each
 * retry an event), the rest thrown as a ModelError saying what to do.
 */
export async function completeWithRetries(
  request: ModelRequest,
  onEvent: (event: ModelStreamEvent) => void,
  attempt: (
    request: ModelRequest,
    onEvent: (event: ModelStreamEvent) => void,
  ) => Promise<ModelResponse | AttemptFailure>,
  options: RetryLoopOptions,
): Promise<ModelResponse> {
  const { signal } = request;
  for (let retry = 0; ; retry++) {
    if (signal?.aborted) throw abortError(signal);
    const outcome = await attempt(request, onEvent);
    if (!("kind" in outcome)) return outcome;
    const decision = decideRetry(outcome);
    decision.reason = options.redact(decision.reason);
    if (!decision.retry) throw nonRetryableError(decision, options.modelId, options.hints);
    if (retry >= options.maxRetries) throw exhaustedError(decision, retry + 1, options.hints);
    const delayMs = backoffDelay(retry + 1, decision, options.backoff);
    onEvent({ type: "retry", attempt: retry + 1, delayMs, reason: decision.reason });
    try {
      await options.sleep(delayMs, signal);
    } catch (error) {
      if (signal?.aborted) throw abortError(signal);
      throw error;
    }
  }
}

/**
 * A provider's error text with its credentials out (and anything else the
 * secret detector finds: a proxy's answer can quote a header).
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return createSecretDetector(secrets.map((value) => ({ name: "known-secret", value }))).redact(
    text,
  );
}

/** "Connection error.: fetch failed: connect ECONNREFUSED 127.0.0.1:1": the root cause is the useful part. */
export function describeCause(error: unknown): string {
  const parts = causeMessages(error, 4);
  return parts.length > 0 ? parts.join(": ") : String(error);
}

/** The two error classes both official SDKs (Anthropic's and OpenAI's) share by name. */
export interface SdkErrorClasses {
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
}

/**
 * An SDK error before the API said anything: an abort is thrown as one (the
 * run was stopped), a failed connection is retried; undefined for the rest.
 */
export function transportFailure(
  classes: SdkErrorClasses,
  error: unknown,
  signal: AbortSignal | undefined,
): AttemptFailure | undefined {
  if (signal?.aborted) throw abortError(signal);
  if (error instanceof classes.APIUserAbortError || isAbortError(error)) {
    throw error instanceof Error ? error : new DOMException("aborted", "AbortError");
  }
  if (error instanceof classes.APIConnectionError) {
    return { kind: "connection", message: describeCause(error) };
  }
  return undefined;
}
