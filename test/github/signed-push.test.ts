import { randomBytes } from "node:crypto";
import { chmodSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SecretInCommitError } from "../../src/git/push/secret-scan.js";
import { pushSigned } from "../../src/github/signed-push.js";
import { createFakeGitHub, type FakeRoute } from "../helpers/fake-github.js";
import { fakeGitData } from "../helpers/fake-github-upkeep.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

let tmp: TempDir;
let remote: BareRepo;
let work: string;
let env: Record<string, string>;
let data: ReturnType<typeof fakeGitData>;
const octokit = new Octokit({ request: { retries: 0 } });
const repo = { owner: "octo-org", repo: "demo" };

beforeEach(() => {
  tmp = makeTempDir("pw-signed-");
  env = gitTestEnv(join(tmp.path, "home"));
  remote = createBareRepo({
    root: tmp.path,
    env,
    files: { "README.md": "# demo\n", "old.txt": "bye\n", "run.sh": "echo hi\n" },
  });
  work = join(tmp.path, "work");
  git(tmp.path, ["clone", "-q", remote.url, work], env);
  git(work, ["checkout", "-q", "-b", "agent/x"], env);
  data = fakeGitData("/repos/octo-org/demo", remote.dir);
  nock.disableNetConnect();
  createFakeGitHub({ ...repo, routes: data.routes }).mountNock();
});

afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  data.close();
  tmp.remove();
});

const commitAll = (message: string, author = "Ada <ada@example.com>") => {
  git(work, ["add", "-A"], env);
  git(work, ["commit", "-q", "--author", author, "-m", message], env);
  return git(work, ["rev-parse", "HEAD"], env);
};

/** pushSigned of the work clone's agent/x onto `onto`, a new branch unless told otherwise. */
const push = (onto: string, more: { exists?: boolean; lease?: string } = {}) =>
  pushSigned({
    octokit,
    repo,
    dir: work,
    env,
    branch: "agent/x",
    onto,
    exists: more.exists ?? false,
    ...(more.lease ? { lease: more.lease } : {}),
    secrets: [],
  });

describe("pushSigned", () => {
  it("recreates every commit through the API: same trees, messages, authors; binary, modes, links, deletions", async () => {
    const big = randomBytes(2 * 1024 * 1024);
    writeFileSync(join(work, "image.bin"), big);
    chmodSync(join(work, "run.sh"), 0o755);
    symlinkSync("README.md", join(work, "link"));
    const first = commitAll("feat: add an image\n\nCo-authored-by: Grace <grace@example.com>");
    rmSync(join(work, "old.txt"));
    writeFileSync(join(work, "README.md"), "# demo\n\nmore\n");
    const second = commitAll("docs: more", "Bob <bob@example.com>");
    const onto = remote.sha("main") ?? "";

    const pushed = await push(onto);

    expect(pushed.created.size).toBe(2);
    expect(remote.sha("agent/x")).toBe(pushed.sha);
    const remoteGit = (args: string[]) => git(tmp.path, ["--git-dir", remote.dir, ...args], env);
    expect(remoteGit(["rev-parse", `${pushed.sha}^{tree}`])).toBe(
      git(work, ["rev-parse", "HEAD^{tree}"], env),
    );
    const one = pushed.created.get(first) ?? "";
    expect(remoteGit(["rev-parse", `${one}^{tree}`])).toBe(
      git(work, ["rev-parse", `${first}^{tree}`], env),
    );
    expect(remoteGit(["log", "--format=%an|%B", "-1", one])).toContain(
      "Ada|feat: add an image\n\nCo-authored-by: Grace <grace@example.com>",
    );
    expect(remoteGit(["log", "--format=%an|%s", "-1", pushed.created.get(second) ?? ""])).toBe(
      "Bob|docs: more",
    );
    expect(remoteGit(["rev-list", "--parents", "-n", "1", one]).split(" ")[1]).toBe(onto);
    expect(data.commits.every((c) => c.committer === undefined)).toBe(true);
    // Each new blob sent once (image, run.sh, link, README), the 2 MiB file byte for byte.
    expect(data.blobs).toBe(4);
  });

  it("moves an existing branch only over the tip it was told (a lease)", async () => {
    writeFileSync(join(work, "a.txt"), "a\n");
    commitAll("feat: a");
    const main = remote.sha("main") ?? "";
    remote.push({ branch: "agent/x", files: { "someone.txt": "else\n" } });
    const theirs = remote.sha("agent/x");
    await expect(push(main, { exists: true, lease: main })).rejects.toThrow(/moved on GitHub/);
    expect(remote.sha("agent/x")).toBe(theirs);
  });

  it("moves no ref when GitHub's tree differs from the one committed in the workspace", async () => {
    writeFileSync(join(work, "a.txt"), "a\n");
    rmSync(join(work, "old.txt"));
    const mine = commitAll("feat: a");
    nock.cleanAll();
    // A GitHub that loses the deletion on the way: its tree keeps old.txt.
    const lossy: FakeRoute = [
      "POST",
      /^\/repos\/octo-org\/demo\/git\/trees$/,
      (m, body, q) => {
        const tree = body.tree as Array<{ sha: string | null }>;
        const handler = data.routes.find(([method, path]) => method === "POST" && path.test(m[0]));
        if (!handler) throw new Error("no trees route");
        return handler[2](m, { ...body, tree: tree.filter((entry) => entry.sha !== null) }, q);
      },
    ];
    createFakeGitHub({ ...repo, routes: [lossy, ...data.routes] }).mountNock();
    await expect(push(remote.sha("main") ?? "")).rejects.toThrow(`commit ${mine.slice(0, 7)}`);
    expect(data.commits).toHaveLength(0);
    expect(remote.sha("agent/x")).toBeNull();
  });

  it("pushes nothing that holds a secret", async () => {
    writeFileSync(join(work, "leak.txt"), "token ghs_0123456789abcdefghijklmnopqrstuvwxyzAB\n");
    commitAll("chore: leak");
    await expect(push(remote.sha("main") ?? "")).rejects.toBeInstanceOf(SecretInCommitError);
    expect(data.commits).toHaveLength(0);
    expect(remote.sha("agent/x")).toBeNull();
  });
});
