import { tmpdir } from "node:os";
import type { SimpleGit } from "simple-git";
import { splitCredentials } from "./credentials.js";
import { createGit, type GitEnv } from "./git-client.js";

export interface RemoteQueryOptions {
  url: string;
  token?: string;
  env?: GitEnv;
  signal?: AbortSignal;
}

/**
 * A git client for asking a remote something (ls-remote) without a local
 * repository: the token goes only to that remote, hooks are off.
 */
export function remoteQueryGit(options: RemoteQueryOptions): { git: SimpleGit; url: string } {
  const { url, token: urlToken } = splitCredentials(options.url);
  const token = options.token ?? urlToken;
  const git = createGit(tmpdir(), {
    env: options.env ?? process.env,
    ...(token ? { auth: { url, token } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { git, url };
}
