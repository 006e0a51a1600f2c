import type { SimpleGit } from "simple-git";

export interface Refs {
  /** Remote branch name -> tip, from the mirror's remote-tracking refs. */
  remote: Map<string, string>;
  /** Local branches in the mirror: those of jobs running here. */
  local: Set<string>;
}

/**
 * The mirror's branches, in one git call: only the named ones (remote and
 * local), or (null) all of them, which a branch picker needs.
 */
export async function readRefs(git: SimpleGit, only: string[] | null): Promise<Refs> {
  const remotePrefix = "refs/remotes/origin/";
  const localPrefix = "refs/heads/";
  const patterns = only
    ? only.flatMap((b) => [`${remotePrefix}${b}`, `${localPrefix}${b}`])
    : [remotePrefix, localPrefix];
  const out = await git.raw(["for-each-ref", "--format=%(objectname) %(refname)", ...patterns]);
  const refs: Refs = { remote: new Map(), local: new Set() };
  for (const line of out.split("\n")) {
    const [sha, ref] = line.trim().split(" ");
    if (!sha || !ref) continue;
    if (ref.startsWith(remotePrefix)) refs.remote.set(ref.slice(remotePrefix.length), sha);
    else if (ref.startsWith(localPrefix)) refs.local.add(ref.slice(localPrefix.length));
  }
  return refs;
}
