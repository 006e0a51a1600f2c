import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { type GitClientOptions, runGit } from "../git-client.js";

/** The mirror's branches as a new workspace asks for them, by name. */
export interface MirrorRefs {
  /** The remote branch's tip, from the mirror's remote-tracking ref. */
  remoteTip(branch: string): Promise<string | undefined>;
  /** Whether the mirror has this local branch: a job running here works on it. */
  hasLocal(branch: string): Promise<boolean>;
}

const REMOTE = "refs/remotes/origin/";
const LOCAL = "refs/heads/";

type Lookup = (ref: string) => Promise<string | undefined>;

/**
 * Reads the refs from the mirror's files, as git's "files" ref store keeps
 * them (gitrepository-layout: a loose file per ref, which wins over the
 * `packed-refs` list): a workspace is made on the way to a job's first model
 * request, and each git process costs that way a fork of this whole process.
 * Anything else (a reftable store, a symbolic or unreadable ref) makes it
 * ask git once, with `for-each-ref`, for every branch. Callers check branch
 * names before they ask (assertBranchName), so a name is never a path out.
 */
export function mirrorRefs(gitDir: string, options: GitClientOptions): MirrorRefs {
  let files: Promise<Lookup | undefined> | undefined;
  let git: Promise<Lookup> | undefined;
  // Once git is asked, it answers every later name too: one `for-each-ref` at most.
  const viaGit = (name: string) => {
    git ??= gitLookup(gitDir, options);
    return git.then((read) => read(name));
  };
  const ref = async (name: string) => {
    if (git) return viaGit(name);
    files ??= fileLookup(gitDir);
    const read = await files;
    const sha = read ? await read(name) : FALL_BACK;
    return sha === FALL_BACK ? viaGit(name) : sha;
  };
  return {
    remoteTip: (branch) => ref(`${REMOTE}${branch}`),
    hasLocal: async (branch) => (await ref(`${LOCAL}${branch}`)) !== undefined,
  };
}

/** Returned by a file lookup that met something only git can read. */
const FALL_BACK = "\0git";

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

async function fileLookup(gitDir: string): Promise<Lookup | undefined> {
  const reftable = await stat(join(gitDir, "reftable")).then(
    () => true,
    () => false,
  );
  if (reftable) return undefined;
  let packed: Promise<Map<string, string> | undefined> | undefined;
  return async (ref) => {
    if (ref.split("/").some((part) => part === "" || part === "." || part === "..")) {
      return FALL_BACK;
    }
    const loose = await readFile(join(gitDir, ref), "utf8").catch((error: NodeJS.ErrnoException) =>
      ABSENT.has(error.code ?? "") ? undefined : FALL_BACK,
    );
    if (loose === FALL_BACK) return FALL_BACK;
    if (loose !== undefined) {
      const sha = loose.trim();
      return OBJECT_ID.test(sha) ? sha : FALL_BACK;
    }
    packed ??= readPackedRefs(gitDir);
    const list = await packed;
    return list ? list.get(ref) : FALL_BACK;
  };
}

/** No loose file for this ref: a missing file, or a folder of refs below that name. */
const ABSENT = new Set(["ENOENT", "ENOTDIR", "EISDIR"]);

/** `packed-refs`: "<id> <ref>" lines, a "#" header, "^<id>" lines peeling the tag above. */
async function readPackedRefs(gitDir: string): Promise<Map<string, string> | undefined> {
  const text = await readFile(join(gitDir, "packed-refs"), "utf8").catch(
    (error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? "" : undefined),
  );
  if (text === undefined) return undefined;
  const refs = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#") || line.startsWith("^")) continue;
    const [sha, ref, extra] = line.split(" ");
    if (!sha || !ref || extra !== undefined || !OBJECT_ID.test(sha)) return undefined;
    refs.set(ref, sha);
  }
  return refs;
}

async function gitLookup(gitDir: string, options: GitClientOptions): Promise<Lookup> {
  const out = await runGit(
    gitDir,
    ["for-each-ref", "--format=%(objectname) %(refname)", REMOTE, LOCAL],
    options,
  );
  const refs = new Map<string, string>();
  for (const line of out.split("\n")) {
    const [sha, ref] = line.trim().split(" ");
    if (sha && ref) refs.set(ref, sha);
  }
  return async (ref) => refs.get(ref);
}
