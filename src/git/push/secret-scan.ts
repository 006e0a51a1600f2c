import {
  createSecretDetector,
  type KnownSecret,
  type SecretDetector,
} from "../../secrets/detector.js";
import { type GitEnv, runGit, runGitBuffer } from "../git-client.js";
import { type DiffTreeEntry, diffTreeEntry } from "../tree/diff-tree.js";

export type { KnownSecret };

/**
 * The last look before a push: every commit the remote does not have yet
 * is searched with the secret detector (secrets/detector.ts: the rule set,
 * and the secrets this process knows, exactly and in the encodings a header
 * or a URL would carry them), in its message, its file names and what it
 * changed in its files. A file is judged by what the commit brings into it:
 * a value its parent's version already held is not new to the remote (a test
 * fixture the agent edits around). A hit blocks the push; the report names
 * the commit, the place and the kind of secret, never the value.
 */

export interface SecretFinding {
  commit: string;
  where: "message" | "file name" | "file";
  path?: string;
  /** The secret's name or the token shape. */
  what: string;
}

export class SecretInCommitError extends Error {
  constructor(readonly findings: SecretFinding[]) {
    super(
      `refusing to push: the commits contain secrets (${findings.map(describeFinding).join("; ")}). ` +
        "The values are not shown; remove them from the commits and run the job again.",
    );
    this.name = "SecretInCommitError";
  }
}

/**
 * Throws SecretInCommitError when the commits a push would publish hold a
 * secret: any the process knows, and the token the push itself carries
 * (`token`, from its push context). Every push of ours asks this first: a
 * job's branch (git/push/push.ts) and a checkpoint ref (git/commit/checkpoint-ref.ts).
 */
export async function refuseSecretsInNewCommits(options: {
  dir: string;
  env: GitEnv;
  secrets: readonly KnownSecret[];
  token: string | undefined;
  tip?: string | undefined;
  published?: ReadonlySet<string> | undefined;
}): Promise<void> {
  const { token, ...scan } = options;
  const secrets = token
    ? [...scan.secrets, { name: "the push token", value: token }]
    : scan.secrets;
  const findings = await findSecretsInNewCommits({ ...scan, secrets });
  if (findings.length > 0) throw new SecretInCommitError(findings);
}

export function describeFinding(finding: SecretFinding): string {
  const place =
    finding.where === "message"
      ? "the message"
      : `${finding.where === "file name" ? "the file name" : "the file"} ${finding.path}`;
  return `${finding.what} in ${place} of ${finding.commit.slice(0, 7)}`;
}

export async function findSecretsInNewCommits(options: {
  dir: string;
  env: GitEnv;
  secrets: readonly KnownSecret[];
  /** The commit whose new history is scanned (default HEAD). */
  tip?: string | undefined;
  /** Blobs of published releases (PushBranchOptions.published): searched for the known values only. */
  published?: ReadonlySet<string> | undefined;
}): Promise<SecretFinding[]> {
  const git = { env: options.env };
  const detector = createSecretDetector(options.secrets);
  const knownOnly = createSecretDetector(options.secrets, { shapes: false });
  // Two processes whatever the number of commits (a checkpointed job pushes
  // one per turn): the log with what each commit changed, then every blob
  // it names. Root commits show what they add; merges show nothing, as
  // `diff-tree <merge>` did: what they bring was scanned in its own commits.
  const commits = parseCommitLog(
    await runGit(
      options.dir,
      [
        "log",
        "-z",
        "--format=%H%x01%B",
        "--raw",
        "-r",
        "--root",
        "--no-renames",
        "--no-abbrev",
        "--diff-merges=off",
        options.tip ?? "HEAD",
        "--not",
        "--remotes",
      ],
      git,
    ),
  );
  const blobs = await readBlobs(
    options.dir,
    commits.flatMap(({ changes }) =>
      changes.flatMap((c) => [c.new?.sha ?? "", ...(c.old ? [c.old.sha] : [])]),
    ),
    git,
  );
  const findings: SecretFinding[] = [];
  let next = 0;
  for (const { commit, message, changes } of commits) {
    for (const what of kindsIn(detector, message)) {
      findings.push({ commit, where: "message", what });
    }
    for (const change of changes) {
      const added = blobs[next++] ?? Buffer.alloc(0);
      const before = change.old ? (blobs[next++] ?? Buffer.alloc(0)) : undefined;
      for (const what of kindsIn(detector, change.path)) {
        findings.push({ commit, where: "file name", path: change.path, what });
      }
      const published = change.new && options.published?.has(change.new.sha);
      for (const what of introduced(published ? knownOnly : detector, added, before)) {
        findings.push({ commit, where: "file", path: change.path, what });
      }
    }
  }
  return findings;
}

interface LoggedCommit {
  commit: string;
  message: string;
  /** The paths it adds or changes (deletions bring nothing in). */
  changes: DiffTreeEntry[];
}

/**
 * Reads `git log -z --format=%H%x01%B --raw`: each commit is "sha\x01message"
 * and a NUL, then its raw entries, ":modes shas status" and the path, each
 * followed by a NUL (the first entry after a newline). A commit's token
 * starts with its sha, an entry's with a colon; a path is whatever follows
 * an entry, so a file named ":x" is read as a path.
 */
export function parseCommitLog(out: string): LoggedCommit[] {
  const tokens = out.split("\0");
  const commits: LoggedCommit[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? "";
    const current = commits.at(-1);
    if (current && /^\n?:/.test(token)) {
      const entry = diffTreeEntry(token, tokens[++i] ?? "");
      if (entry?.new) current.changes.push(entry);
      continue;
    }
    const split = token.indexOf("\x01");
    if (split < 0) continue;
    commits.push({ commit: token.slice(0, split), message: token.slice(split + 1), changes: [] });
  }
  return commits;
}

function kindsIn(detector: SecretDetector, text: string): string[] {
  return [...new Set(detector.find(text).map((match) => match.rule))];
}

/** The kinds of secret in `added` whose values `before` did not hold. */
function introduced(detector: SecretDetector, added: Buffer, before: Buffer | undefined): string[] {
  // latin1 keeps every byte as one character, so binary files are searched too.
  const text = added.toString("latin1");
  const old = before?.toString("latin1");
  const kinds = new Set<string>();
  for (const match of detector.find(text)) {
    if (old?.includes(text.slice(match.start, match.end))) continue;
    kinds.add(match.rule);
  }
  return [...kinds];
}

/** Reads blobs in one `cat-file --batch`: "<sha> blob <size>\n<bytes>\n" each. */
async function readBlobs(dir: string, shas: string[], git: { env: GitEnv }): Promise<Buffer[]> {
  if (shas.length === 0) return [];
  const out = await runGitBuffer(dir, ["cat-file", "--batch"], {
    ...git,
    input: `${shas.join("\n")}\n`,
  });
  const blobs: Buffer[] = [];
  let offset = 0;
  for (let i = 0; i < shas.length; i++) {
    const end = out.indexOf(0x0a, offset);
    const size = Number(out.subarray(offset, end).toString("latin1").split(" ")[2]);
    blobs.push(out.subarray(end + 1, end + 1 + size));
    offset = end + 1 + size + 1;
  }
  return blobs;
}
