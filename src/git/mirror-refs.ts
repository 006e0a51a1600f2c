import { type GitClientOptions, runGit } from "./git-client.js";

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
export async function readRefs(
  gitDir: string,
  options: GitClientOptions,
  only: string[] | null,
): Promise<Refs> {
  const remotePrefix = "refs/remotes/origin/";
  const localPrefix = "refs/heads/";
  const patterns = only
    ? only.flatMap((b) => [`${remotePrefix}${b}`, `${localPrefix}${b}`])
    : [remotePrefix, localPrefix];
  // runGit: this is on the way to a job's first model request, and simple-git costs more than git here.
  const out = await runGit(
    gitDir,
    ["for-each-ref", "--format=%(objectname) %(refname)", ...patterns],
    options,
  );
  const refs: Refs = { remote: new Map(), local: new Set() };
  for (const line of out.split("\n")) {
    const [sha, ref] = line.trim().split(" ");
    if (!sha || !ref) continue;
    if (ref.startsWith(remotePrefix)) refs.remote.set(ref.slice(remotePrefix.length), sha);
    else if (ref.startsWith(localPrefix)) refs.local.add(ref.slice(localPrefix.length));
  }
  return refs;
}
