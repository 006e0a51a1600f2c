import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findSecretsInNewCommits, parseCommitLog } from "../../../src/git/push/secret-scan.js";
import { git, makeRepo } from "../../helpers/temp-dir.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" };
const KEY = "sk-ant-scan-test-0123456789";
const secrets = [{ name: "ANTHROPIC_API_KEY", value: KEY }];

/** A repository whose first commit the "remote" already has (refs/remotes/origin/main). */
async function repo() {
  const dir = await makeRepo({ "old.txt": `already public: ${KEY}\n` });
  git(dir, "update-ref", "refs/remotes/origin/main", "HEAD");
  return dir;
}

function commit(dir: string, files: Record<string, string | Buffer>, message: string) {
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", message);
}

describe("findSecretsInNewCommits", () => {
  it("finds secrets in new commits' messages, file names and contents, in any encoding", async () => {
    const dir = await repo();
    commit(dir, { "a.txt": "clean\n" }, `mention ${KEY} here`);
    commit(dir, { [`${KEY}.txt`]: "x\n" }, "odd name");
    const header = Buffer.from(`x-access-token:${KEY}`).toString("base64");
    commit(
      dir,
      { "b.bin": Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(header)]) },
      "binary",
    );
    commit(
      dir,
      { "c.pem": "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n" },
      "key",
    );
    const findings = await findSecretsInNewCommits({ dir, env, secrets });
    const seen = findings.map((f) => `${f.where} ${f.path ?? ""} ${f.what}`.replace(/\s+/g, " "));
    expect(seen.sort()).toEqual(
      [
        "message ANTHROPIC_API_KEY",
        `file name ${KEY}.txt ANTHROPIC_API_KEY`,
        "file b.bin ANTHROPIC_API_KEY",
        "file c.pem private-key",
      ].sort(),
    );
  });

  it("looks for only the known values in a published release's blob, every rule elsewhere", async () => {
    const dir = await repo();
    // What yarn's minified bundle holds, which the token-shape rules take for secrets.
    const bundle =
      'r.url.password:r.url.password=r.password;var u="https://user:key_1234@example.com"\n';
    // The same bytes twice are one blob; one byte more is another.
    commit(dir, { "yarn.cjs": bundle, "copy.cjs": bundle, "changed.cjs": `${bundle} ` }, "release");
    const blob = git(dir, "rev-parse", "HEAD:yarn.cjs").trim();
    const kinds = async (published?: Set<string>) =>
      (await findSecretsInNewCommits({ dir, env, secrets, published }))
        .map((f) => `${f.path} ${f.what}`)
        .sort();
    const everywhere = await kinds();
    const shapes = everywhere.filter((k) => k.startsWith("yarn.cjs")).map((k) => k.slice(9));
    expect(shapes.length).toBeGreaterThan(0);
    expect(everywhere).toEqual(
      ["changed.cjs", "copy.cjs", "yarn.cjs"].flatMap((f) => shapes.map((k) => `${f} ${k}`)),
    );
    // Published, the blob shows no token shape under either name; the other blob does.
    expect(await kinds(new Set([blob]))).toEqual(shapes.map((k) => `changed.cjs ${k}`));
    // This process's own secrets are looked for in published blobs too.
    commit(dir, { "yarn.cjs": `${bundle}${KEY}\n` }, "key");
    const withKey = git(dir, "rev-parse", "HEAD:yarn.cjs").trim();
    expect(await kinds(new Set([blob, withKey]))).toContain("yarn.cjs ANTHROPIC_API_KEY");
  });

  it("leaves what the remote already has alone, and finds nothing in clean commits", async () => {
    const dir = await repo();
    commit(dir, { "a.txt": "nothing to see\n" }, "clean");
    expect(await findSecretsInNewCommits({ dir, env, secrets })).toEqual([]);
  });
});

describe("the log it reads, one process for all the new commits", () => {
  it("reads each commit's files whatever their names, past empty commits, root commits included", async () => {
    // No remote-tracking refs: every commit is new, the root commit too.
    const dir = await makeRepo({ "root.txt": `${KEY}\n` });
    git(dir, "commit", "-q", "--allow-empty", "-m", "empty");
    commit(dir, { ":colon.txt": `${KEY}\n`, "line\nbreak.txt": `${KEY}\n` }, "odd names");
    git(dir, "commit", "-q", "--allow-empty", "-m", "empty again");
    commit(dir, { "last.txt": `${KEY}\n` }, "last");
    const findings = await findSecretsInNewCommits({ dir, env, secrets });
    const subjects = (sha: string) => git(dir, "log", "-1", "--format=%s", sha).trim();
    expect(findings.map((f) => `${subjects(f.commit)}: ${f.path}`).sort()).toEqual(
      [
        "initial: root.txt",
        "odd names: :colon.txt",
        "odd names: line\nbreak.txt",
        "last: last.txt",
      ].sort(),
    );
  });

  it("scans a merge's parents' commits, not the merge itself", async () => {
    const dir = await repo();
    git(dir, "checkout", "-q", "-b", "side");
    commit(dir, { "side.txt": `${KEY}\n` }, "side");
    git(dir, "checkout", "-q", "main");
    commit(dir, { "main.txt": "clean\n" }, "main");
    git(dir, "merge", "-q", "--no-edit", "side");
    const findings = await findSecretsInNewCommits({ dir, env, secrets });
    expect(findings.map((f) => `${f.where} ${f.path}`)).toEqual(["file side.txt"]);
  });
});

describe("parseCommitLog", () => {
  it("tells commits from raw entries, and a path named like an entry is a path", () => {
    const a = "a".repeat(40);
    const b = "b".repeat(40);
    const blob = "1".repeat(40);
    const zero = "0".repeat(40);
    const out = [
      `${a}\x01first\n`,
      `\n:000000 100644 ${zero} ${blob} A`,
      ":000000 100644 x y A",
      `:100644 000000 ${blob} ${zero} D`,
      "gone.txt",
      `${b}\x01second\n`,
      "",
    ].join("\0");
    expect(parseCommitLog(out)).toEqual([
      {
        commit: a,
        message: "first\n",
        changes: [{ path: ":000000 100644 x y A", old: null, new: { mode: "100644", sha: blob } }],
      },
      { commit: b, message: "second\n", changes: [] },
    ]);
  });
});
