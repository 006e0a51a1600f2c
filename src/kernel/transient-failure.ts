import { isTransientGitError, isTransientGitOutput } from "../git/retry.js";
import { isTransientApiError, statusOf } from "../github/api-errors.js";

/**
 * Failures that outlasted the call-level retries but may still pass: GitHub
 * answering 5xx or asking to wait, the git server down, a connection that
 * broke. A job that hits one goes back to the queue while it has attempts
 * left, instead of ending on a final "something went wrong".
 */

/** The git job stopped on a transport failure (its fetch or push); thrown so the job can be retried. */
export class TransientJobError extends Error {
  constructor(
    /** The step that failed (a git job's: workspace or push). */
    readonly stage: string,
    message: string,
  ) {
    super(message);
    this.name = "TransientJobError";
  }
}

// Node's names for a connection that failed or broke (undici puts them on `cause`).
const NETWORK_CODES =
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|ENETDOWN|UND_ERR_(SOCKET|CONNECT_TIMEOUT|HEADERS_TIMEOUT|BODY_TIMEOUT|CLOSED))$/;

function networkCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isTransientFailure(error: unknown): boolean {
  return (
    error instanceof TransientJobError ||
    isTransientApiError(error) ||
    isTransientGitError(error) ||
    networkCode(error) !== undefined
  );
}

/** Whether the git job's own failure was its fetch or push meeting a server that was down. */
export function isTransientJobFailure(error: { stage: string; message: string }): boolean {
  return (
    (error.stage === "workspace" || error.stage === "push") && isTransientGitOutput(error.message)
  );
}

/** Who did not answer, in words for the tracking comment. */
export function whatFailed(error: unknown): string {
  if (error instanceof TransientJobError || isTransientGitError(error))
    return "The git server did not answer";
  const status = statusOf(error);
  if (status === 429 || status === 403) return "GitHub asked me to slow down (rate limit)";
  const code = networkCode(error);
  if (code) return `A connection failed (${code})`;
  return status !== undefined ? `GitHub did not answer (${status})` : "GitHub did not answer";
}
