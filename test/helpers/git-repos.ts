import { createHash } from "node:crypto";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runSync } from "./sync-spawn.js";

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
 * depend on who runs them (no user.name, no credential helpers), nor on
 * npm's global config (a file in HOME that does not exist, in place of the
 * one beside node): a host's `cafile` there would reach the jobs' sandboxes
 * as NODE_EXTRA_CA_CERTS (sandbox/trust/host-trust.ts), which Node 20 parses
 * at every start, used or not (54 ms of CPU for a 144-certificate bundle),
 * and a host's `registry` would send tests' npm elsewhere.
 *
 * Without git's automatic housekeeping after commits and pushes: a test's
 * repositories live for seconds, and `git maintenance` after each commit
 * and the server side's `gc --auto` after each push were processes for
 * nothing (app/pr-upkeep: ~3,310 processes and threads → ~3,190). The
 * product's own housekeeping (git/mirror/mirror.ts) is an explicit command, which
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
  // The tools' temporary files too (yarn 1 leaves a folder of shims in its
  // TMPDIR after an install), and the scratch folders of a process a test
  // kills mid-job: in the test's folder, removed with it, not in the run's,
  // where global-setup.ts counts what a cleanup forgot. A sandbox gives its
  // commands their own /tmp.
  const tmp = join(home, "tmp");
  mkdirSync(tmp, { recursive: true });
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: tmp,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: globalConfig,
    NPM_CONFIG_GLOBALCONFIG: join(home, "npmrc-global"),
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
  return runSync("git", args, { cwd, env: { ...env, ...AUTHOR }, input }).trim();
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

/**
 * Repositories already made, by what they hold: most tests ask for one of a
 * few, and making one took nine git processes, each a fork of the test
 * worker (15–35 ms apiece at a worker's size on the 2-core VM). A copy of
 * the folder is the same repository: the same objects, refs and config (a
 * bare repository's files name no path of their own), its commits made
 * when the first was. The suite's workers share them through the folder
 * test/global-setup.ts names in PW_REPO_TEMPLATES; anything else (a bench)
 * keeps its own for the process.
 */
const templates = new Map<string, string>();
let ownTemplates: string | undefined;

function templateRoot(): string {
  const shared = process.env.PW_REPO_TEMPLATES;
  if (shared) return shared;
  if (!ownTemplates) {
    const made = mkdtempSync(join(tmpdir(), "pw-repo-templates-"));
    ownTemplates = made;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  return ownTemplates;
}

function repositoryTemplate(options: CreateBareRepoOptions): string {
  const defaultBranch = options.defaultBranch ?? "main";
  const files: Record<string, string> = {
    "README.md": "# demo\n",
    "src/parser/parse.ts": "export const parse = (s: string) => s.split(',');\n",
    ...options.files,
  };
  if (options.gitignore !== undefined) files[".gitignore"] = options.gitignore;
  const hooks = options.hooks ?? {};
  const key = JSON.stringify([defaultBranch, files, hooks, options.commits ?? 0]);
  const known = templates.get(key);
  if (known) return known;
  const root = templateRoot();
  const final = join(root, createHash("sha256").update(key).digest("hex").slice(0, 24));
  const dir = join(final, "repo.git");
  if (!existsSync(dir)) {
    // Made aside and renamed into place: another worker may be making the same one.
    const building = mkdtempSync(join(root, "making-"));
    const bare = join(building, "repo.git");
    git(building, ["init", "--bare", "--quiet", "-b", defaultBranch, bare], options.env);
    appendFileSync(
      join(bare, "config"),
      "[uploadpack]\n\tallowFilter = true\n\tallowAnySHA1InWant = true\n[http]\n\treceivepack = true\n" +
        // The product pushes with its own git config (none global), so the
        // test home's `receive.autogc = false` does not reach this side: without
        // it every push ends in a `git gc --auto` process on the "server".
        "[receive]\n\tautogc = false\n",
    );
    const branch = `refs/heads/${defaultBranch}`;
    const stream = [
      commitCommand(
        branch,
        "initial",
        {
          ...files,
          ...Object.fromEntries(Object.entries(hooks).map(([hook, s]) => [`.githooks/${hook}`, s])),
        },
        new Set(Object.keys(hooks).map((hook) => `.githooks/${hook}`)),
      ),
    ];
    for (let i = 1; i <= (options.commits ?? 0); i++) {
      stream.push(commitCommand(branch, `history ${i}`, { "history.txt": `line ${i}\n` }));
    }
    git(bare, ["fast-import", "--quiet"], options.env, stream.join(""));
    try {
      renameSync(building, final);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
    }
    rmSync(building, { recursive: true, force: true });
  }
  templates.set(key, dir);
  return dir;
}

/**
 * A `git fast-import` commit on `branch` (after its current tip, or `from`),
 * by the test identity unless `who` is given; null content deletes a file.
 */
function commitCommand(
  branch: string,
  message: string,
  files: Record<string, string | null>,
  executable: Set<string> = new Set(),
  options: { from?: string; who?: { name: string; email: string }; mark?: number } = {},
): string {
  const who = options.who ?? { name: AUTHOR.GIT_AUTHOR_NAME, email: AUTHOR.GIT_AUTHOR_EMAIL };
  const when = `${Math.floor(Date.now() / 1000)} +0000`;
  return [
    `commit ${branch}\n`,
    options.mark ? `mark :${options.mark}\n` : "",
    `author ${who.name} <${who.email}> ${when}\n`,
    `committer ${who.name} <${who.email}> ${when}\n`,
    fastImportData(commitMessage(message)),
    options.from ? `from ${options.from}\n` : "",
    ...Object.entries(files).map(([path, content]) =>
      content === null
        ? `D ${fastImportPath(path)}\n`
        : `M ${executable.has(path) ? "100755" : "100644"} inline ${fastImportPath(path)}\n${fastImportData(content)}`,
    ),
    "\n",
  ].join("");
}

function fastImportData(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

export function createBareRepo(options: CreateBareRepoOptions): BareRepo {
  const { root, env } = options;
  const name = options.name ?? "repo";
  const defaultBranch = options.defaultBranch ?? "main";
  const dir = join(root, `${name}.git`);
  cpSync(repositoryTemplate(options), dir, { recursive: true });
  const url = pathToFileURL(dir).href;

  let pushes = 0;
  const repo: BareRepo = {
    dir,
    url,
    env,
    push(change) {
      // One `git fast-import` writes the commit and moves the branch: what a
      // clone, commit and push did, without the five processes around it.
      const exists = repo.sha(change.branch) !== null;
      const start = exists ? change.branch : (change.from ?? defaultBranch);
      const stream = commitCommand(
        `refs/heads/${change.branch}`,
        change.message ?? `change ${change.branch}`,
        change.files,
        new Set(),
        {
          from: `refs/heads/${start}^0`,
          mark: 1,
          ...(change.author ? { who: change.author } : {}),
        },
      );
      const marks = join(root, `${name}-push-${++pushes}.marks`);
      git(dir, ["fast-import", "--quiet", `--export-marks=${marks}`], env, stream);
      const sha = readFileSync(marks, "utf8").trim().split(" ")[1] ?? "";
      rmSync(marks, { force: true });
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

/** The message as `git commit` keeps it: trailing spaces and blank lines off, one final newline. */
function commitMessage(message: string): string {
  return `${message.replace(/[ \t]+$/gm, "").replace(/^\n+|\n+$/g, "")}\n`;
}

/** A path in fast-import's syntax: quoted when it has a space, a quote or a backslash. */
function fastImportPath(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused
  if (/[\u0000-\u001f]/.test(path))
    throw new Error(`no control characters in a test path: ${path}`);
  return /[\s"\\]/.test(path) ? `"${path.replace(/["\\]/g, "\\$&")}"` : path;
}
