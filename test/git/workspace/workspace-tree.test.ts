import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mirrorDirFor } from "../../../src/git/mirror/mirror.js";
import { prepareWorkspace, type Workspace } from "../../../src/git/workspace/workspace.js";
import {
  deleteDetachedTree,
  detachWorktree,
  listWorktrees,
  treeWriteConfig,
} from "../../../src/git/workspace/worktrees.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../../helpers/git-repos.js";

/**
 * Worktrees are written by git's parallel checkout (treeWriteConfig). These
 * compare what a job gets, new or parked, with a plain serial clone of the
 * same commit: every path, its type, mode, content and link target.
 */

let tmp: TempDir;
let env: Record<string, string>;
let repo: BareRepo;
let author: string;
const open: Workspace[] = [];

beforeEach(() => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  repo = createBareRepo({ root: tmp.path, env });
  author = join(tmp.path, "author");
  git(tmp.path, ["clone", "--quiet", repo.url, author], env);
});

afterEach(async () => {
  for (const ws of open.splice(0)) await ws.cleanup();
  tmp.remove();
});

function write(path: string, content: string): void {
  mkdirSync(join(author, path, ".."), { recursive: true });
  writeFileSync(join(author, path), content);
}

function pushAuthor(message: string): string {
  git(author, ["add", "-A"], env);
  git(author, ["commit", "--quiet", "-m", message], env);
  git(author, ["push", "--quiet", "origin", "HEAD:main"], env);
  return git(author, ["rev-parse", "HEAD"], env);
}

/** More files than git's threshold for a parallel checkout (100), and every kind of entry. */
function seedTree(): void {
  for (const dir of ["a", "b", "c"]) {
    for (let i = 0; i < 60; i++)
      write(`src/${dir}/file-${i}.ts`, `export const v${i} = "${dir}";\n`);
  }
  write("bin/run.sh", "#!/bin/sh\necho run\n");
  chmodSync(join(author, "bin/run.sh"), 0o755);
  symlinkSync("README.md", join(author, "readme-link"));
  symlinkSync("src/a", join(author, "dir-link"));
  write(".gitattributes", "*.crlf text eol=crlf\n*.id ident\n");
  write("notes.crlf", "first\nsecond\n");
  write("stamp.id", "$Id$\n");
  pushAuthor("a tree with modes, links and filters");
}

interface Entry {
  kind: "file" | "link" | "dir";
  mode?: number;
  content?: string;
}

/** Every path under dir but .git, with what a checkout decides about it. */
function snapshot(dir: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      if (path === dir && name === ".git") continue;
      const full = join(path, name);
      const key = relative(dir, full);
      const info = lstatSync(full);
      if (info.isSymbolicLink()) entries.set(key, { kind: "link", content: readlinkSync(full) });
      else if (info.isDirectory()) {
        entries.set(key, { kind: "dir" });
        walk(full);
      } else {
        entries.set(key, {
          kind: "file",
          mode: info.mode & 0o111,
          content: readFileSync(full, "latin1"),
        });
      }
    }
  };
  walk(dir);
  return entries;
}

/** A plain, serial clone of the remote's main: what the tree must look like. */
function reference(name: string): Map<string, Entry> {
  const dir = join(tmp.path, name);
  git(tmp.path, ["-c", "checkout.workers=1", "clone", "--quiet", repo.url, dir], env);
  return snapshot(dir);
}

function workersRan(trace: string): boolean {
  return readFileSync(trace, "utf8")
    .split("\n")
    .some((line) => line.includes('"event":"start"') && line.includes("checkout--worker"));
}

async function prepare(branch: string, trace: string, keepIdle = 1) {
  const ws = await prepareWorkspace({
    cloneUrl: repo.url,
    baseBranch: "main",
    branch,
    createBranch: true,
    cacheDir: join(tmp.path, "cache"),
    env: { ...env, GIT_TRACE2_EVENT: trace },
    keepIdle,
    workRoot: join(tmp.path, "work"),
  });
  open.push(ws);
  return ws;
}

describe("a job's worktree, written by git's parallel checkout", () => {
  it("is exactly the branch's tree: contents, modes, links and .gitattributes", async () => {
    seedTree();
    const trace = join(tmp.path, "trace-new.json");
    const ws = await prepare("agent/new", trace);
    expect(workersRan(trace)).toBe(true);

    const tree = snapshot(ws.dir);
    expect(tree).toEqual(reference("plain"));
    // The filters ran: line endings converted, the ident expanded.
    expect(tree.get("notes.crlf")?.content).toBe("first\r\nsecond\r\n");
    expect(tree.get("stamp.id")?.content).toMatch(/^\$Id: [0-9a-f]{40} \$\n$/);
    expect(tree.get("bin/run.sh")?.mode).toBe(0o111);
    expect(tree.get("readme-link")).toEqual({ kind: "link", content: "README.md" });
    expect(git(ws.dir, ["status", "--porcelain", "--ignored"], env)).toBe("");
  });

  it("a parked tree moved to another commit holds that commit's tree and nothing else", async () => {
    seedTree();
    const first = await prepare("agent/first", join(tmp.path, "trace-first.json"));
    writeFileSync(join(first.dir, "untracked.txt"), "left by the job\n");
    writeFileSync(join(first.dir, "src/a/file-1.ts"), "edited by the job\n");
    await first.cleanup();

    // Upstream moves: over 100 files change, a folder goes, a mode flips,
    // a link becomes a file and a file a link.
    for (let i = 0; i < 60; i++) write(`src/a/file-${i}.ts`, `export const v${i} = "moved";\n`);
    for (let i = 0; i < 50; i++) write(`src/b/file-${i}.ts`, `export const w${i} = 2;\n`);
    rmSync(join(author, "src/c"), { recursive: true });
    chmodSync(join(author, "bin/run.sh"), 0o644);
    rmSync(join(author, "readme-link"));
    write("readme-link", "now a file\n");
    rmSync(join(author, "stamp.id"));
    symlinkSync("notes.crlf", join(author, "stamp.id"));
    pushAuthor("upstream moved");

    const trace = join(tmp.path, "trace-second.json");
    const second = await prepare("agent/second", trace);
    expect(second.dir).toBe(first.dir);
    expect(workersRan(trace)).toBe(true);
    expect(snapshot(second.dir)).toEqual(reference("plain-moved"));
    expect(git(second.dir, ["status", "--porcelain", "--ignored"], env)).toBe("");
  });
});

describe("a removed tree's files, deleted after the mirror lock", () => {
  it("leave the mirror's records at once and the disk when cleanup resolves", async () => {
    const a = await prepare("agent/a", join(tmp.path, "trace-a.json"), 0);
    writeFileSync(join(a.dir, "untracked.txt"), "x\n");
    const aside = await detachWorktree(a.mirrorDir, a.dir, { env });
    expect(aside).not.toBeNull();
    expect(existsSync(a.dir)).toBe(false);
    expect(readFileSync(join(aside as string, "untracked.txt"), "utf8")).toBe("x\n");
    // No record of it: its branch is free to delete, it is neither listed nor parked.
    expect(await listWorktrees(a.mirrorDir)).toEqual([]);
    git(a.mirrorDir, ["branch", "-D", "agent/a"], env);
    expect(git(a.mirrorDir, ["worktree", "list", "--porcelain"], env)).not.toContain(a.dir);
    await deleteDetachedTree(aside);
    expect(existsSync(aside as string)).toBe(false);

    const b = await prepare("agent/b", join(tmp.path, "trace-b.json"), 0);
    await b.cleanup();
    expect(readdirSync(join(tmp.path, "work"))).toEqual([]);
    expect(git(b.mirrorDir, ["branch", "--list"], env)).toBe("");
  });

  it("take the admin dir from git's records, not from the tree's .git file", async () => {
    const a = await prepare("agent/a", join(tmp.path, "trace-a.json"), 0);
    const b = await prepare("agent/b", join(tmp.path, "trace-b.json"), 0);
    const [bAdmin] = (await listWorktrees(mirrorDirFor(join(tmp.path, "cache"), repo.url)))
      .filter((w) => w.dir === b.dir)
      .map((w) => w.adminDir);
    // A job that pointed its tree's .git at another job's worktree.
    writeFileSync(join(a.dir, ".git"), `gitdir: ${bAdmin}\n`);
    await a.cleanup();
    expect(existsSync(a.dir)).toBe(false);
    expect(existsSync(bAdmin as string)).toBe(true);
    expect(git(b.dir, ["symbolic-ref", "--short", "HEAD"], env)).toBe("agent/b");
    expect(git(b.dir, ["status", "--porcelain"], env)).toBe("");
  });
});

describe("treeWriteConfig", () => {
  it("asks for at least two workers, even on one core, and at most eight", () => {
    expect(treeWriteConfig(1)).toEqual([["checkout.workers", "2"]]);
    expect(treeWriteConfig(4)).toEqual([["checkout.workers", "4"]]);
    expect(treeWriteConfig(64)).toEqual([["checkout.workers", "8"]]);
  });
});
