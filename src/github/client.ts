import { createAppAuth } from "@octokit/auth-app";
import type { Octokit as Core } from "@octokit/core";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import type Bottleneck from "bottleneck";
import { lastingNetworkTrouble } from "./api-errors.js";
import { nearsItsEnd } from "./token-life.js";
import { writeSpacing } from "./write-spacing.js";

/**
 * The GitHub clients a worker builds once per process: @octokit/rest that
 * sits out rate limits (plugin-throttling) and retries GitHub's own
 * failures (plugin-retry), signed in as the App (a JWT) or as one of its
 * installations (tokens minted and renewed by @octokit/auth-app).
 *
 * - Primary and secondary rate limits (403/429 with `retry-after` or
 *   `x-ratelimit-remaining: 0`) wait as long as GitHub asks, a bounded
 *   number of times, and fail at once when asked to wait too long.
 * - 5xx answers and network failures are retried with growing waits.
 * - Other 4xx answers are the request's own fault and are not retried.
 * - Writes are spaced as GitHub asks (a second apart, three for writes that
 *   notify people) per installation: each installation has its own
 *   throttling id, so one busy installation never delays another's writes.
 */
/**
 * Registered before the retry plugin, so its error hook sees a failure
 * first: a request that met lasting network trouble (api-errors.ts
 * `lastingNetworkTrouble`: an untrusted certificate, a proxy asking for a
 * password) is not sent again at once, where the retry plugin would spend
 * its retries and their waits (1 + 4 + 9 s) on it as on an outage. The job
 * still goes back to the queue, to run once the network is fixed.
 */
function lastingTroubleNotRetried(octokit: Core): void {
  octokit.hook.error("request", (error, options) => {
    if (lastingNetworkTrouble(error)) options.request = { ...options.request, retries: 0 };
    throw error;
  });
}

const ResilientOctokit = Octokit.plugin(lastingTroubleNotRetried, throttling, retry);
export type AppClient = InstanceType<typeof ResilientOctokit>;

export interface GitHubAppClientSettings {
  appId: number | string;
  privateKey: string;
  /** The REST API root: `https://<GHE_HOST>/api/v3` on GitHub Enterprise Server (default api.github.com). */
  baseUrl?: string | undefined;
  /** Where waits and retries are logged (default: the console). */
  log?: AppClientLog | undefined;
  /** Retries after a 5xx or a network failure, waiting 1, 4, 9… seconds (default 3). */
  retries?: number | undefined;
  /** Retries after a rate limit, each after the wait GitHub asked for (default 3). */
  rateLimitRetries?: number | undefined;
  /** A rate limit that asks for a longer wait fails the request at once (default 300 s). */
  maxRateLimitWaitSeconds?: number | undefined;
  /** Milliseconds in one second of every wait above (default 1000; tests shrink time with it). */
  secondMs?: number | undefined;
  /**
   * Where the write spacing is kept when several processes act for the same
   * installations (workers on Redis): one clock per installation across all
   * of them, instead of one per process. Default: in this process.
   */
  sharedLimits?: Bottleneck.IORedisConnection | undefined;
}

export interface AppClientLog {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface GitHubAppClients {
  /** The App itself, authenticated with a JWT: `/app`, finding installations. */
  app(): AppClient;
  /** One installation's client; its token is minted on first use and renewed before it expires. */
  installation(installationId: number): AppClient;
}

// 403 and 429 are left to the throttling plugin, which knows a rate limit from a refusal.
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451];

export function createGitHubAppClients(settings: GitHubAppClientSettings): GitHubAppClients {
  const secondMs = settings.secondMs ?? 1_000;
  const rateLimitRetries = settings.rateLimitRetries ?? 3;
  const maxWait = settings.maxRateLimitWaitSeconds ?? 300;
  // Shared by every client of this factory (and, with sharedLimits, every
  // process on the same Redis), keyed by throttling id.
  const { write, notifications } = writeSpacing(secondMs, settings.sharedLimits);

  const onLimit =
    (kind: string) =>
    (
      retryAfter: number,
      options: { method: string; url: string },
      octokit: { log: { warn(message: string): void } },
      count: number,
    ) => {
      const again = count < rateLimitRetries && retryAfter <= maxWait;
      const next = again ? `retrying in ${retryAfter} s` : "giving up";
      octokit.log.warn(`GitHub ${kind} on ${options.method} ${options.url}; ${next}`);
      return again;
    };

  const client = (id: string, installationId?: number): AppClient =>
    new ResilientOctokit({
      authStrategy: createAppAuth,
      auth: {
        appId: settings.appId,
        privateKey: settings.privateKey,
        ...(installationId !== undefined ? { installationId } : {}),
      },
      ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
      ...(settings.log ? { log: settings.log } : {}),
      throttle: {
        id,
        write,
        notifications,
        retryAfterBaseValue: secondMs,
        onRateLimit: onLimit("rate limit"),
        onSecondaryRateLimit: onLimit("secondary rate limit"),
      },
      retry: {
        retries: settings.retries ?? 3,
        retryAfterBaseValue: secondMs,
        doNotRetry: DO_NOT_RETRY,
      },
    });

  return {
    app: () => client(`app-${settings.appId}`),
    installation: (installationId) => client(`installation-${installationId}`, installationId),
  };
}

/** The installation's access token, for git: the cached one, or a new one once it nears its end. */
export async function installationToken(
  client: AppClient,
  now: () => number = Date.now,
): Promise<string> {
  return (await installationAccess(client, now)).token;
}

/** The token and what it may do (`permissions.workflows === "write"` lets a push touch workflows). */
export async function installationAccess(
  client: AppClient,
  now: () => number = Date.now,
): Promise<{ token: string; permissions: Record<string, string> }> {
  let auth = (await client.auth({ type: "installation" })) as InstallationAuth;
  if (nearsItsEnd(auth.expiresAt, now())) {
    auth = (await client.auth({ type: "installation", refresh: true })) as InstallationAuth;
  }
  return { token: auth.token, permissions: auth.permissions ?? {} };
}

interface InstallationAuth {
  token: string;
  /** ISO time; GitHub's `expires_at`. */
  expiresAt?: string;
  permissions?: Record<string, string>;
}
