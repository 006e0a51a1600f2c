import { tmpdir } from "node:os";
import { splitCredentials } from "./credentials.js";
import { createGit, type GitEnv } from "./git-client.js";

export interface RemoteHeadOptions {
  url: string;
  token?: string;
  env?: GitEnv;
  signal?: AbortSignal;
}

/**
 * The remote's default branch (what its HEAD points at), for jobs that are
 * given a repository but no base branch: `patchwright run --repo`.
 */
export async function remoteDefaultBranch(options: RemoteHeadOptions): Promise<string> {
  const { url, token: urlToken } = splitCredentials(options.url);
  const token = options.token ?? urlToken;
  const git = createGit(tmpdir(), {
    env: options.env ?? process.env,
    ...(token ? { auth: { url, token } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    noHooks: true,
  });
  const out = await git.raw(["ls-remote", "--symref", "--", url, "HEAD"]);
  const match = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(out);
  if (!match?.[1])
    throw new Error(`could not tell the default branch of ${url}; pass --base BRANCH`);
  return match[1];
}
