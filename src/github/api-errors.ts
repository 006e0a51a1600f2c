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
