import { setTimeout as delay } from "node:timers/promises";
import { GitCommandError } from "./git-client.js";

/**
 * Retrying what failed for reasons that pass: a git server restarting, a
 * load balancer's 502, a reset connection. Used for our own git transport
 * and, by kernel/, for GitHub API checks; what counts as transient is the
 * caller's predicate.
 */

/** Waits `ms`; rejects when the signal aborts. Injected so tests never wait for real. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

const realSleep: Sleep = (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined);

export interface RetryOptions {
  /** The wait before each retry, in order; as many retries as entries. */
  delaysMs?: readonly number[] | undefined;
  sleep?: Sleep | undefined;
  /** Told about each failure that is about to be retried (for logs). */
  onRetry?: ((error: unknown, retry: number, delayMs: number) => void) | undefined;
}

/**
 * Four tries over about ten seconds: long enough for a server restart or a
 * proxy's hiccup, short enough that a job does not hang on a server that is
 * really down.
 */
const GIT_RETRY_DELAYS_MS: readonly number[] = [1_000, 3_000, 6_000];

/** Runs `attempt`, and again after each delay while it fails with an error `isTransient` accepts. */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  isTransient: (error: unknown) => boolean,
  options: RetryOptions & { delaysMs: readonly number[]; signal?: AbortSignal | undefined },
): Promise<T> {
  const sleep = options.sleep ?? realSleep;
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      const wait = options.delaysMs[retry];
      if (wait === undefined || options.signal?.aborted || !isTransient(error)) throw error;
      options.onRetry?.(error, retry + 1, wait);
      await sleep(wait, options.signal);
    }
  }
}

/** A git command that talks to a remote, retried on transport failures (GIT_RETRY_DELAYS_MS by default). */
export function retryGit<T>(
  attempt: () => Promise<T>,
  options: RetryOptions & { signal?: AbortSignal | undefined } = {},
): Promise<T> {
  return withRetries(attempt, isTransientGitError, {
    ...options,
    delaysMs: options.delaysMs ?? GIT_RETRY_DELAYS_MS,
  });
}

// What git (through curl) prints when the connection, not the request, failed.
const TRANSIENT = [
  /Failed to connect to/i,
  /Couldn't connect to server/i,
  /Connection (refused|reset|timed out)/i,
  /Operation timed out/i,
  /Operation too slow/i,
  /Could not resolve host/i,
  /Empty reply from server/i,
  /(Recv|Send) failure/i,
  /transfer closed with/i,
  /The requested URL returned error: 5\d\d/i,
  /RPC failed; (HTTP 5\d\d|curl \d+)/i,
  /remote end hung up unexpectedly/i,
  /early EOF/i,
  /unexpected disconnect/i,
  /SSL_ERROR_SYSCALL|GnuTLS recv error|TLS connection was non-properly terminated/i,
];

// Answers that another try gets the same way; they win over a transient-looking line
// ("the remote end hung up" also follows an authentication failure).
const PERMANENT = [
  /Authentication failed/i,
  /could not read (Username|Password)/i,
  /The requested URL returned error: 4\d\d/i,
  /RPC failed; HTTP 4\d\d/i,
  /repository .* not found/i,
  /couldn't find remote ref/i,
  /does not appear to be a git repository/i,
  /\[(remote )?rejected\]/,
];

/**
 * A transport failure worth another try: connection refused or reset, a
 * timeout, a 5xx from the server. Not an authentication failure, a missing
 * repository or ref, or a rejected push: those answer the same every time.
 */
export function isTransientGitError(error: unknown): boolean {
  return error instanceof GitCommandError && isTransientGitOutput(error.output);
}

/** The same judgement on what git printed, once the error itself is gone (a job's reported failure). */
export function isTransientGitOutput(output: string): boolean {
  return TRANSIENT.some((re) => re.test(output)) && !PERMANENT.some((re) => re.test(output));
}
