import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findSecretsInNewCommits } from "../../../src/git/push/secret-scan.js";
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

  it("leaves what the remote already has alone, and finds nothing in clean commits", async () => {
    const dir = await repo();
    commit(dir, { "a.txt": "nothing to see\n" }, "clean");
    expect(await findSecretsInNewCommits({ dir, env, secrets })).toEqual([]);
  });
});
