import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Local git fixtures: bare "remote" repositories reachable over file://, and
 * a way to push commits to them as if someone else did.
 */

export interface TempDir {
  path: string;
  remove(): void;
}

export function makeTempDir(prefix = "patchwright-git-"): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true, maxRetries: 3 }) };
}

/**
 * An environment isolated from the machine's git config, so tests do not
 * depend on who runs them (no user.name, no credential helpers).
 *
 * Without git's automatic housekeeping after commits and pushes: a test's
 * repositories live for seconds, and `git maintenance` after each commit
 * and the server side's `gc --auto` after each push were processes for
 * nothing (app/pr-upkeep: ~3,310 processes and threads → ~3,190). The
 * product's own housekeeping (git/mirror.ts) is an explicit command, which
 * still runs.
 */
export function gitTestEnv(home: string): Record<string, string> {
  mkdirSync(home, { recursive: true });
  const globalConfig = join(home, ".gitconfig");
  writeFileSync(
    globalConfig,
    [
      "[init]\n\tdefaultBranch = main",
      '[protocol "file"]\n\tallow = always',
      "[maintenance]\n\tauto = false",
      "[receive]\n\tautogc = false\n",
    ].join("\n"),
  );
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: globalConfig,
  };
}

const AUTHOR = {
  GIT_AUTHOR_NAME: "Remote Person",
  GIT_AUTHOR_EMAIL: "remote@example.com",
  GIT_COMMITTER_NAME: "Remote Person",
  GIT_COMMITTER_EMAIL: "remote@example.com",
};

/** Runs git and returns trimmed stdout; throws with stderr on failure. */
export function git(cwd: string, args: string[], env: Record<string, string>, input?: string) {
  return execFileSync("git", args, {
    cwd,
    env: { ...env, ...AUTHOR },
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
    ...(input !== undefined ? { input } : {}),
  }).trim();
}

export interface BareRepo {
  /** The bare repository on disk. */
  dir: string;
  /** file:// URL of it. */
  url: string;
  env: Record<string, string>;
  /** Commits files (null deletes) on a branch and pushes it; returns the new sha. */
  push(change: PushChange): string;
  /** The sha of a branch on the remote, or null. */
  sha(branch: string): string | null;
  /** A file's content at a ref on the remote. */
  show(ref: string, path: string): string;
  /** Subjects of the commits on a ref, newest first. */
  subjects(ref: string, count?: number): string[];
}

export interface PushChange {
  branch: string;
  /** Branch to start from when `branch` does not exist yet (default: the default branch). */
  from?: string;
  files: Record<string, string | null>;
  message?: string;
  /** Who wrote the commit (default: the test identity). */
  author?: { name: string; email: string };
}

export interface CreateBareRepoOptions {
  root: string;
  env: Record<string, string>;
  name?: string;
  defaultBranch?: string;
  files?: Record<string, string>;
  /** Extra commits after the first, each touching history.txt. */
  commits?: number;
  gitignore?: string;
  /** Executable files committed under .githooks/ (use with core.hooksPath). */
  hooks?: Record<string, string>;
}

export function createBareRepo(options: CreateBareRepoOptions): BareRepo {
  const { root, env } = options;
  const name = options.name ?? "repo";
  const defaultBranch = options.defaultBranch ?? "main";
  const dir = join(root, `${name}.git`);
  mkdirSync(dir, { recursive: true });
  git(dir, ["init", "--bare", "--quiet", "-b", defaultBranch], env);
  git(dir, ["config", "uploadpack.allowFilter", "true"], env);
  git(dir, ["config", "uploadpack.allowAnySHA1InWant", "true"], env);
  git(dir, ["config", "http.receivepack", "true"], env);
  const url = pathToFileURL(dir).href;

  const seed = join(root, `${name}-seed`);
  git(root, ["clone", "--quiet", url, seed], env);
  git(seed, ["checkout", "--quiet", "-b", defaultBranch], env);
  const files: Record<string, string> = {
    "README.md": "# demo\n",
    "src/parser/parse.ts": "export const parse = (s: string) => s.split(',');\n",
    ...options.files,
  };
  if (options.gitignore !== undefined) files[".gitignore"] = options.gitignore;
  for (const [path, content] of Object.entries(files)) writeFile(seed, path, content);
  for (const [hook, script] of Object.entries(options.hooks ?? {})) {
    writeFile(seed, `.githooks/${hook}`, script);
    chmodSync(join(seed, ".githooks", hook), 0o755);
  }
  git(seed, ["add", "-A"], env);
  git(seed, ["commit", "--quiet", "-m", "initial"], env);
  for (let i = 1; i <= (options.commits ?? 0); i++) {
    writeFile(seed, "history.txt", `line ${i}\n`);
    git(seed, ["add", "-A"], env);
    git(seed, ["commit", "--quiet", "-m", `history ${i}`], env);
  }
  git(seed, ["push", "--quiet", "origin", `HEAD:refs/heads/${defaultBranch}`], env);
  rmSync(seed, { recursive: true, force: true });

  let pushes = 0;
  const repo: BareRepo = {
    dir,
    url,
    env,
    push(change) {
      const work = join(root, `${name}-push-${++pushes}`);
      const exists = repo.sha(change.branch) !== null;
      const start = exists ? change.branch : (change.from ?? defaultBranch);
      git(root, ["clone", "--quiet", "--branch", start, url, work], env);
      if (!exists) git(work, ["checkout", "--quiet", "-b", change.branch], env);
      for (const [path, content] of Object.entries(change.files)) {
        if (content === null) rmSync(join(work, path), { force: true });
        else writeFile(work, path, content);
      }
      git(work, ["add", "-A"], env);
      const message = change.message ?? `change ${change.branch}`;
      if (change.author) {
        const { name, email } = change.author;
        execFileSync("git", ["commit", "--quiet", "-m", message], {
          cwd: work,
          env: {
            ...env,
            GIT_AUTHOR_NAME: name,
            GIT_AUTHOR_EMAIL: email,
            GIT_COMMITTER_NAME: name,
            GIT_COMMITTER_EMAIL: email,
          },
        });
      } else git(work, ["commit", "--quiet", "-m", message], env);
      git(work, ["push", "--quiet", "origin", `HEAD:refs/heads/${change.branch}`], env);
      const sha = git(work, ["rev-parse", "HEAD"], env);
      rmSync(work, { recursive: true, force: true });
      return sha;
    },
    sha(branch) {
      try {
        return git(dir, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], env);
      } catch {
        return null;
      }
    },
    show: (ref, path) => git(dir, ["show", `${ref}:${path}`], env),
    subjects: (ref, count = 20) =>
      git(dir, ["log", `-${count}`, "--format=%s", ref], env)
        .split("\n")
        .filter(Boolean),
  };
  return repo;
}

function writeFile(root: string, path: string, content: string): void {
  const absolute = join(root, path);
  mkdirSync(dirname(absolute), { recursive: true });
  writeFileSync(absolute, content);
}
