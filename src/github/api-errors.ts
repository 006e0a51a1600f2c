import { causeMessages } from "../error-message.js";
import { findNetworkTrouble, type NetworkTrouble } from "../sandbox/network-trouble.js";

/**
 * What a failed GitHub API call says about itself, whatever client made it:
 * Octokit's RequestError carries the `status` and the `response` headers,
 * and reports a network failure as a 500 without a response.
 */

interface ApiErrorShape {
  name?: unknown;
  status?: unknown;
  message?: unknown;
  response?: { headers?: Record<string, unknown> };
}

export function statusOf(error: unknown): number | undefined {
  const status = (error as ApiErrorShape | null)?.status;
  return typeof status === "number" ? status : undefined;
}

export function isNotFound(error: unknown): boolean {
  return statusOf(error) === 404;
}

/**
 * The answer to a write was lost: GitHub failed (5xx) or the connection
 * broke after the request was sent, so the write may or may not have
 * happened. A cancelled request is not in doubt: we stopped it.
 */
export function isAmbiguousFailure(error: unknown): boolean {
  const status = statusOf(error);
  return status !== undefined && status >= 500 && !isAbort(error);
}

/**
 * A request that met trouble a retry a few seconds later will meet again:
 * its connection met a TLS certificate nobody here trusts (a network that
 * inspects HTTPS with a CA this process was not told of) or a proxy asking
 * for a password. Octokit reports it as a 500 without an answer, the shape
 * of an outage, and its retry plugin would spend its retries and their
 * waits on it (client.ts keeps it from that). The job still goes back to
 * the queue for it (isTransientApiError): fixed later (the CA given, a GHE
 * server's certificate renewed), the job runs, where failing it would leave
 * its mention unanswered, since GitHub cannot be told either.
 */
export function lastingNetworkTrouble(error: unknown): NetworkTrouble | undefined {
  if (statusOf(error) !== 500 || (error as ApiErrorShape | null)?.response) return undefined;
  const codes: string[] = [];
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
  }
  const trouble = findNetworkTrouble([...causeMessages(error, 4), ...codes].join("\n"));
  return trouble?.kind === "tls" || trouble?.kind === "proxy-auth" ? trouble : undefined;
}

/**
 * Asking again may well succeed: GitHub or the network failed, or a rate
 * limit (429, or a 403 that says so) asked to wait. A 4xx about the request
 * itself (not found, no access, invalid) answers the same every time.
 */
export function isTransientApiError(error: unknown): boolean {
  if (isAmbiguousFailure(error)) return true;
  const status = statusOf(error);
  return status === 429 || (status === 403 && isRateLimit(error));
}

function isRateLimit(error: unknown): boolean {
  const { message, response } = (error ?? {}) as ApiErrorShape;
  const headers = response?.headers ?? {};
  return (
    headers["x-ratelimit-remaining"] === "0" ||
    headers["retry-after"] !== undefined ||
    /rate limit/i.test(String(message))
  );
}

function isAbort(error: unknown): boolean {
  return (error as ApiErrorShape | null)?.name === "AbortError";
}
