import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { branchName, listRemoteBranches } from "../../src/git/branch.js";
import { createCommits } from "../../src/git/commit/commits.js";
import { allowJobBranches, pushBranch } from "../../src/git/push/push.js";
import { prepareWorkspace } from "../../src/git/workspace/workspace.js";
import { type GitHttpServer, startGitHttpServer } from "../helpers/git-http-server.js";
import {
  type BareRepo,
  createBareRepo,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

const TOKEN = "ghs_FlowToken9876543210";

let tmp: TempDir;
let env: Record<string, string>;
let repo: BareRepo;
let server: GitHttpServer;

beforeEach(async () => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  repo = createBareRepo({ root: join(tmp.path, "srv"), env, commits: 2 });
  server = await startGitHttpServer({ projectRoot: join(tmp.path, "srv"), token: TOKEN, env });
});

afterEach(async () => {
  await server.close();
  tmp.remove();
});

describe("a whole job over authenticated HTTP", () => {
  it("names, prepares, commits, and pushes after rebasing onto a concurrent push", async () => {
    const url = server.url("repo");
    repo.push({ branch: "agent/issue-8-retry-uploads", files: { "x.txt": "x\n" } });
    const heads = await listRemoteBranches({ url, token: TOKEN, env });
    const branch = await branchName({
      issueNumber: 8,
      title: "Retry uploads",
      existing: async (name) => heads.has(name),
    });
    expect(branch).toBe("agent/issue-8-retry-uploads-2");

    const ws = await prepareWorkspace({
      cloneUrl: url,
      token: TOKEN,
      baseBranch: "main",
      branch,
      createBranch: true,
      cacheDir: join(tmp.path, "cache"),
      env,
    });
    try {
      const path = "src/upload.ts";
      writeFileSync(join(ws.dir, path), "retry();\n");
      await createCommits({
        dir: ws.dir,
        turns: [
          {
            turn: 1,
            text: "Add retries to uploads.",
            files: [{ path, before: null, after: readFileSync(join(ws.dir, path)) }],
          },
        ],
        identity: { name: "bot", email: "bot@example.com" },
        env,
      });
      // Someone pushes to the same branch name first.
      repo.push({ branch, files: { "human.txt": "h\n" }, message: "human commit" });

      const before = server.requests.length;
      const result = await pushBranch({
        dir: ws.dir,
        remoteUrl: ws.remoteUrl,
        mirrorDir: ws.mirrorDir,
        branch,
        token: TOKEN,
        allowedBranch: allowJobBranches({ prefix: "agent/" }),
        defaultBranch: "main",
        env,
        secrets: [],
      });
      expect(result.rebased).toBe(true);
      expect(repo.sha(branch)).toBe(result.sha);
      expect(repo.subjects(branch, 2)).toEqual([
        "feat(upload): add retries to uploads",
        "human commit",
      ]);
      const pushRequests = server.requests.slice(before);
      expect(pushRequests.some((r) => r.path.endsWith("/git-receive-pack"))).toBe(true);
      expect(pushRequests.every((r) => r.authorized)).toBe(true);
    } finally {
      await ws.cleanup();
    }
  });
});
