import { TOKEN_PATTERNS } from "../secrets/patterns.js";
import { parseDiffTree } from "./diff-tree.js";
import { type GitEnv, runGit, runGitBuffer } from "./git-client.js";

/**
 * The last look before a push: every commit the remote does not have yet
 * is searched for the secrets this process knows (exactly, and in the
 * encodings a header or a URL would carry them) and for well-known token
 * shapes, in its message, its file names and its files. A hit blocks the
 * push; the report names the commit, the place and the kind of secret,
 * never the value.
 */

export interface KnownSecret {
  /** What to call it in a report: "the installation token", "ANTHROPIC_API_KEY". */
  name: string;
  value: string;
}

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
}): Promise<SecretFinding[]> {
  const git = { env: options.env };
  const needles = needlesOf(options.secrets);
  const log = await runGit(
    options.dir,
    ["log", "-z", "--format=%H%x01%B", options.tip ?? "HEAD", "--not", "--remotes"],
    git,
  );
  const findings: SecretFinding[] = [];
  for (const entry of log.split("\0").filter(Boolean)) {
    const [commit = "", message = ""] = entry.split("\x01");
    for (const what of matches(Buffer.from(message), needles)) {
      findings.push({ commit, where: "message", what });
    }
    const changes = parseDiffTree(
      await runGit(
        options.dir,
        ["diff-tree", "-r", "-z", "--no-renames", "--root", "--no-commit-id", commit],
        git,
      ),
    ).filter((change) => change.new !== null);
    const blobs = await readBlobs(
      options.dir,
      changes.map((c) => c.new?.sha ?? ""),
      git,
    );
    changes.forEach((change, i) => {
      for (const what of matches(Buffer.from(change.path), needles)) {
        findings.push({ commit, where: "file name", path: change.path, what });
      }
      for (const what of matches(blobs[i] ?? Buffer.alloc(0), needles)) {
        findings.push({ commit, where: "file", path: change.path, what });
      }
    });
  }
  return findings;
}

interface Needle {
  what: string;
  bytes: Buffer;
}

/** Each value as is, base64 (an auth header), and inside git's basic-auth pair. */
function needlesOf(secrets: readonly KnownSecret[]): Needle[] {
  return secrets.flatMap(({ name, value }) =>
    [value, base64(value), base64(`x-access-token:${value}`)].map((form) => ({
      what: name,
      bytes: Buffer.from(form),
    })),
  );
}

function base64(text: string): string {
  return Buffer.from(text).toString("base64");
}

function matches(data: Buffer, needles: readonly Needle[]): string[] {
  const found = new Set<string>();
  for (const needle of needles) if (data.includes(needle.bytes)) found.add(needle.what);
  // latin1 keeps every byte as one character, so binary files are searched too.
  const text = data.toString("latin1");
  for (const { name, pattern } of TOKEN_PATTERNS) {
    pattern.lastIndex = 0;
    if (pattern.test(text)) found.add(name);
    pattern.lastIndex = 0;
  }
  return [...found];
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
