import { tmpdir } from "node:os";
import { type GitToken, splitCredentials } from "./credentials.js";
import { createGit, type GitEnv } from "./git-client.js";
import { type RetryOptions, retryGit } from "./retry.js";

export interface RemoteQueryOptions {
  url: string;
  token?: GitToken;
  /** The caller's environment (from its entry point). */
  env: GitEnv;
  signal?: AbortSignal;
  /** How a query that failed on the transport is retried (default: 4 tries over about 10 s). */
  retry?: RetryOptions;
}

/**
 * A git client for asking a remote something (ls-remote) without a local
 * repository: the token goes only to that remote, hooks are off. Asking
 * changes nothing, so a transport failure (server down, 5xx, reset) is
 * simply asked again.
 */
export function remoteQueryGit(options: RemoteQueryOptions): {
  git: { raw(args: string[]): Promise<string> };
  url: string;
} {
  const { url, token: urlToken } = splitCredentials(options.url);
  const token = options.token ?? urlToken;
  const git = createGit(tmpdir(), {
    env: options.env,
    ...(token ? { auth: { url, token } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const retry = { ...options.retry, signal: options.signal };
  return { git: { raw: (args) => retryGit(() => git.raw(args), retry) }, url };
}
