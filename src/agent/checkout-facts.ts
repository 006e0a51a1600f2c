import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type GitClientOptions, runGit, runGitBuffer } from "../git/git-client.js";
import type { GitInfo, InstructionFile } from "./prompt.js";
import { gitInfoFrom, INSTRUCTION_FILES, instructionFile } from "./prompt-context.js";

/** What a session will read in a new worktree, known before its checkout ends. */
export interface CheckoutFacts {
  git: GitInfo;
  instructions: InstructionFile[];
}

/** What a commit alone tells: its recent history and its instruction files. */
interface CommitFacts {
  log: string;
  instructions: InstructionFile[];
}

/** Where to read a commit's facts: the repository (a mirror) and git's settings for it. */
export interface FactsSource {
  gitDir: string;
  /** The session's environment (its `readGitInfo` runs git with it). */
  env: Record<string, string>;
  /** May carry the token, which a partial mirror needs to fetch the files' contents. */
  blobs: GitClientOptions;
}

/** Modes of a plain file in a git tree: checked out as the blob's bytes. */
const PLAIN_FILE = new Set(["100644", "100755"]);

/**
 * What `readGitInfo` and `readInstructionFiles` will find at the root of a
 * new worktree of `rev` on a branch of its own (clean, no upstream), read
 * from the repository (a mirror) while that worktree is still being checked
 * out: the recent commits from the same object store, the instruction
 * files from their blobs. Undefined when it cannot be told from the objects
 * (an instruction file that is a link or a folder). A checkout that writes
 * something else (a filter, line endings) makes the workspace's facts
 * differ, which the session sees for itself (see sendFirstTurnEarly).
 */
export async function readCheckoutFacts(
  source: FactsSource & { rev: string; branch: string },
): Promise<CheckoutFacts | undefined> {
  // null: the read ahead failed, so it is read again.
  const facts = (await takeReadAhead(source.gitDir, source.rev)) ?? (await readCommitFacts(source));
  // A new branch without upstream, nothing changed yet: what `status --short --branch` says.
  return (
    facts && {
      git: gitInfoFrom(`## ${source.branch}\n`, facts.log),
      instructions: facts.instructions,
    }
  );
}

/**
 * Facts read ahead, by commit: a commit's objects never change, so an entry
 * is what `readCheckoutFacts` would read now. Each is taken once; a few at
 * most are kept (the Action reads one ahead per run).
 */
const readAhead = new Map<string, Promise<CommitFacts | undefined | null>>();
const MAX_READ_AHEAD = 4;

function takeReadAhead(gitDir: string, rev: string) {
  const key = `${gitDir}\0${rev}`;
  const facts = readAhead.get(key) ?? null;
  readAhead.delete(key);
  return facts;
}

/**
 * Starts reading the facts of `ref`'s commit (the default branch's tip,
 * where a new job's branch starts) so that the job's first model request
 * finds them read: the Action calls it when its fetch ends, while the API
 * calls that decide the job are under way and this thread has nothing to do.
 * Never rejects; what fails here the job reads again itself.
 */
export async function readCheckoutFactsAhead(source: FactsSource & { ref: string }): Promise<void> {
  try {
    const rev =
      looseRef(source.gitDir, source.ref) ??
      (
        await runGit(
          source.gitDir,
          ["rev-parse", "--verify", "--quiet", `${source.ref}^{commit}`],
          {
            env: source.env,
          },
        )
      ).trim();
    if (!/^[0-9a-f]{40,64}$/.test(rev)) return;
    if (readAhead.size >= MAX_READ_AHEAD) {
      const oldest = readAhead.keys().next().value;
      if (oldest !== undefined) readAhead.delete(oldest);
    }
    const facts = readCommitFacts({ ...source, rev }).catch(() => null);
    readAhead.set(`${source.gitDir}\0${rev}`, facts);
    await facts;
  } catch {
    // The job reads them itself.
  }
}

/**
 * The commit a fetch just wrote for `ref`, from its loose file: one git
 * process less while this thread is the way to the first request. Anything
 * else (a packed ref, a symbolic one) is left to `rev-parse`; a wrong answer
 * would only miss, as the facts are keyed by the commit the job starts at.
 * Read synchronously: the file is one line, and an asynchronous read is four
 * trips to the thread pool, each waiting for this thread, which is busy with
 * the admission's requests then (in the Action, 36 ms before git log could
 * start).
 */
function looseRef(gitDir: string, ref: string): string | undefined {
  if (!/^refs\/[\w./-]+$/.test(ref) || ref.split("/").includes("..")) return undefined;
  let text = "";
  try {
    text = readFileSync(join(gitDir, ref), "utf8");
  } catch {
    // Not a loose ref: rev-parse answers.
  }
  const sha = text.trim();
  return /^([0-9a-f]{40}|[0-9a-f]{64})$/.test(sha) ? sha : undefined;
}

async function readCommitFacts(
  source: FactsSource & { rev: string },
): Promise<CommitFacts | undefined> {
  const { gitDir, rev } = source;
  const [log, listing] = await Promise.all([
    runGit(gitDir, ["log", "--oneline", "-n", "5", rev], { env: source.env }).catch(() => ""),
    runGit(gitDir, ["ls-tree", "-z", rev, "--", ...INSTRUCTION_FILES], source.blobs),
  ]);
  const entries = new Map<string, { mode: string; oid: string }>();
  for (const entry of listing.split("\0").filter(Boolean)) {
    const match = /^(\d+) \w+ ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (match?.[1] && match[2] && match[3])
      entries.set(match[3], { mode: match[1], oid: match[2] });
  }
  const contents: Array<string | null> = [];
  for (const name of INSTRUCTION_FILES) {
    const entry = entries.get(name);
    if (!entry) {
      contents.push(null);
      continue;
    }
    if (!PLAIN_FILE.has(entry.mode)) return undefined;
    contents.push(
      (await runGitBuffer(gitDir, ["cat-file", "blob", entry.oid], source.blobs)).toString("utf8"),
    );
  }
  const instructions = INSTRUCTION_FILES.flatMap((name, i) => {
    const file = instructionFile(name, contents[i] ?? null);
    return file ? [file] : [];
  });
  return { log, instructions };
}
