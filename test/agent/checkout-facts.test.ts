import { renameSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCheckoutFacts, readCheckoutFactsAhead } from "../../src/agent/checkout-facts.js";
import {
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

/**
 * The first request's facts read ahead from a mirror (the Action does it
 * while its API calls run): the job gets exactly what it would have read,
 * once, and reads for itself whatever was not read ahead.
 */

const dirs: TempDir[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function repository() {
  const tmp = makeTempDir("pw-facts-");
  dirs.push(tmp);
  const env = gitTestEnv(join(tmp.path, "home"));
  const repo = createBareRepo({
    root: tmp.path,
    env,
    files: { "AGENTS.md": "Run the tests.\n", "src/a.js": "1\n" },
    commits: 3,
  });
  const rev = git(repo.dir, ["rev-parse", "main"], env).trim();
  const source = { gitDir: repo.dir, env, blobs: { env } };
  return { repo, env, rev, source };
}

describe("checkout facts read ahead", () => {
  it("are what the job would read, taken once", async () => {
    const { repo, rev, source } = repository();
    const direct = await readCheckoutFacts({ ...source, rev, branch: "agent/x" });
    expect(direct?.instructions).toEqual([{ path: "AGENTS.md", content: "Run the tests.\n" }]);
    expect(direct?.git.recentCommits.split("\n")).toHaveLength(4);

    await readCheckoutFactsAhead({ ...source, ref: "refs/heads/main" });
    // Without its objects git can tell nothing: only the read-ahead answers now.
    renameSync(join(repo.dir, "objects"), join(repo.dir, "objects-gone"));
    const ahead = await readCheckoutFacts({ ...source, rev, branch: "agent/x" });
    expect(ahead).toEqual(direct);
    // Taken: the next read is git's own, which fails.
    await expect(readCheckoutFacts({ ...source, rev, branch: "agent/x" })).rejects.toThrow();
  });

  it("find the commit of a packed ref too (through git)", async () => {
    const { repo, env, rev, source } = repository();
    git(repo.dir, ["pack-refs", "--all"], env);
    await readCheckoutFactsAhead({ ...source, ref: "refs/heads/main" });
    renameSync(join(repo.dir, "objects"), join(repo.dir, "objects-gone"));
    const facts = await readCheckoutFacts({ ...source, rev, branch: "agent/x" });
    expect(facts?.instructions[0]?.path).toBe("AGENTS.md");
  });

  it("name the job's branch, whatever branch they were read ahead for", async () => {
    const { rev, source } = repository();
    await readCheckoutFactsAhead({ ...source, ref: "refs/heads/main" });
    const facts = await readCheckoutFacts({ ...source, rev, branch: "agent/issue-9" });
    expect(facts?.git.branch).toBe("agent/issue-9");
  });

  it("leave nothing behind for a ref that is not there, and never reject", async () => {
    const { repo, rev, source } = repository();
    await expect(
      readCheckoutFactsAhead({ ...source, ref: "refs/heads/no-such-branch" }),
    ).resolves.toBeUndefined();
    await expect(
      readCheckoutFactsAhead({ ...source, gitDir: join(repo.dir, "missing"), ref: "main" }),
    ).resolves.toBeUndefined();
    renameSync(join(repo.dir, "objects"), join(repo.dir, "objects-gone"));
    await expect(readCheckoutFacts({ ...source, rev, branch: "agent/x" })).rejects.toThrow();
  });
});
