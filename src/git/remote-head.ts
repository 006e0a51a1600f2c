import { type RemoteQueryOptions, remoteQueryGit } from "./remote-query.js";

/**
 * The remote's default branch (what its HEAD points at), for jobs that are
 * given a repository but no base branch: `patchwright run --repo`.
 */
export async function remoteDefaultBranch(options: RemoteQueryOptions): Promise<string> {
  const { git, url } = remoteQueryGit(options);
  const out = await git.raw(["ls-remote", "--symref", "--", url, "HEAD"]);
  const match = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(out);
  if (!match?.[1])
    throw new Error(`could not tell the default branch of ${url}; pass --base BRANCH`);
  return match[1];
}
