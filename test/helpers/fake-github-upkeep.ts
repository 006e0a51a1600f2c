import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeResponse, FakeRoute } from "./fake-github.js";
import { runSync } from "./sync-spawn.js";

/**
 * The parts of GitHub's API the upkeep jobs use, as routes for the fake:
 * Actions runs, jobs, logs and re-runs, check runs; pull request files,
 * reviews and comparisons; and the Git Data API, backed by a real bare
 * repository so what it creates can be read back with git.
 */

const ok = (body: unknown, status = 200): FakeResponse => ({ status, body });

export interface FakeJob {
  id: number;
  name: string;
  conclusion: string;
  steps: Array<{ name: string; conclusion: string; number: number }>;
  log: string;
}

export interface FakeRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  run_attempt: number;
  jobs: FakeJob[];
  /** What a re-run of the failed jobs ends with. */
  onRerun: "success" | "failure";
}

export interface FakeCheckRun {
  name: string;
  head_sha: string;
  conclusion: string;
  app: { slug: string };
  output: { title?: string; summary?: string; text?: string };
}

export interface FakeActions {
  runs: FakeRun[];
  /** Check runs of other CI services (or all, when a test serves no Actions runs). */
  checkRuns: FakeCheckRun[];
  reruns: number[];
  /** Set to answer re-run requests with this status (403: the token lacks `actions: write`). */
  refuseReruns?: number | undefined;
  routes: FakeRoute[];
}

export function fakeActions(base: string): FakeActions {
  const runs: FakeRun[] = [];
  const checkRuns: FakeCheckRun[] = [];
  const reruns: number[] = [];
  const actions: FakeActions = { runs, checkRuns, reruns, routes: [] };
  const view = (run: FakeRun) => ({
    id: run.id,
    name: run.name,
    head_sha: run.head_sha,
    status: run.status,
    conclusion: run.conclusion,
    run_attempt: run.run_attempt,
    html_url: `https://github.com/runs/${run.id}`,
  });
  const routes: FakeRoute[] = [
    [
      "GET",
      new RegExp(`^${base}/actions/runs$`),
      (_m, _b, q) =>
        ok({
          total_count: runs.length,
          workflow_runs: runs.filter((r) => r.head_sha === q.get("head_sha")).map(view),
        }),
    ],
    [
      "POST",
      new RegExp(`^${base}/actions/runs/(\\d+)/rerun-failed-jobs$`),
      (m) => {
        const run = runs.find((r) => r.id === Number(m[1]));
        if (!run) return ok({ message: "Not Found" }, 404);
        if (actions.refuseReruns) {
          return ok({ message: "Resource not accessible by integration" }, actions.refuseReruns);
        }
        reruns.push(run.id);
        // The re-run finishes at once in the fake: the job sees it on its next look.
        run.run_attempt += 1;
        run.status = "completed";
        run.conclusion = run.onRerun;
        for (const job of run.jobs) if (run.onRerun === "success") job.conclusion = "success";
        return ok({}, 201);
      },
    ],
    [
      "GET",
      new RegExp(`^${base}/actions/runs/(\\d+)/jobs$`),
      (m) => {
        const run = runs.find((r) => r.id === Number(m[1]));
        const jobs = (run?.jobs ?? []).map((job) => ({
          id: job.id,
          name: job.name,
          conclusion: job.conclusion,
          html_url: `https://github.com/jobs/${job.id}`,
          steps: job.steps,
        }));
        return ok({ total_count: jobs.length, jobs });
      },
    ],
    [
      "GET",
      new RegExp(`^${base}/actions/jobs/(\\d+)/logs$`),
      (m) => {
        const job = runs.flatMap((r) => r.jobs).find((j) => j.id === Number(m[1]));
        return job
          ? { status: 200, body: job.log, headers: { "content-type": "text/plain" } }
          : ok({ message: "Not Found" }, 404);
      },
    ],
    ["GET", new RegExp(`^${base}/check-runs/(\\d+)/annotations$`), () => ok([])],
    [
      "GET",
      new RegExp(`^${base}/commits/([^/]+)/check-runs$`),
      (m) => {
        const list = checkRuns
          .filter((c) => c.head_sha === m[1])
          .map((c, i) => ({ id: 5000 + i, html_url: `https://ci.example/${i}`, ...c }));
        return ok({ total_count: list.length, check_runs: list });
      },
    ],
  ];
  actions.routes = routes;
  return actions;
}

export interface PostedReview {
  id: number;
  commit_id: string;
  body: string;
  event: string;
  comments: Array<{ path: string; line: number; side: string; start_line?: number; body: string }>;
  user: { login: string };
}

export interface FakeReviews {
  /** The files (with patches) each pull request shows. */
  files: Map<number, Array<{ filename: string; patch?: string; status?: string }>>;
  reviews: PostedReview[];
  /** Files changed between two commits, for comparisons ("a...b"). */
  compare: Map<string, Array<{ filename: string; patch?: string }>>;
  routes: FakeRoute[];
}

export function fakeReviews(base: string, botLogin: string): FakeReviews {
  const files = new Map<number, Array<{ filename: string; patch?: string }>>();
  const reviews: PostedReview[] = [];
  const compare = new Map<string, Array<{ filename: string; patch?: string }>>();
  let nextId = 7000;
  const routes: FakeRoute[] = [
    [
      "GET",
      new RegExp(`^${base}/pulls/(\\d+)/files$`),
      (m) => ok((files.get(Number(m[1])) ?? []).map((f) => ({ status: "modified", ...f }))),
    ],
    ["GET", new RegExp(`^${base}/pulls/(\\d+)/reviews$`), () => ok(reviews)],
    [
      "POST",
      new RegExp(`^${base}/pulls/(\\d+)/reviews$`),
      (m, body) => {
        const diff = files.get(Number(m[1])) ?? [];
        const comments = (body.comments ?? []) as PostedReview["comments"];
        // GitHub refuses the whole review when one comment is off the pull request's diff.
        for (const c of comments) {
          const patch = diff.find((f) => f.filename === c.path)?.patch;
          const lines = anchorLines(patch, c.side === "LEFT" ? "-" : "+");
          const from = c.start_line ?? c.line;
          for (let n = from; n <= c.line; n++) {
            if (!lines.has(n)) {
              return ok(
                { message: "Unprocessable Entity", errors: ["Line could not be resolved"] },
                422,
              );
            }
          }
        }
        const review: PostedReview = {
          id: nextId++,
          commit_id: String(body.commit_id),
          body: String(body.body ?? ""),
          event: String(body.event),
          comments,
          user: { login: botLogin },
        };
        reviews.push(review);
        return ok({ ...review, html_url: `https://github.com/pull/${m[1]}#review-${review.id}` });
      },
    ],
    [
      "GET",
      new RegExp(`^${base}/compare/(.+)$`),
      (m) => {
        const changed = compare.get(decodeURIComponent(m[1] ?? ""));
        if (!changed) return ok({ message: "Not Found" }, 404);
        return ok({ status: "ahead", files: changed });
      },
    ],
  ];
  return { files, reviews, compare, routes };
}

/** The lines of one side of a patch a review comment may sit on ("+": the new file, "-": the old). */
function anchorLines(patch: string | undefined, side: "+" | "-"): Set<number> {
  const lines = new Set<number>();
  let at = 0;
  for (const text of (patch ?? "").split("\n")) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(text);
    if (hunk) {
      at = Number(side === "+" ? hunk[2] : hunk[1]);
      continue;
    }
    const other = side === "+" ? "-" : "+";
    if (at === 0 || text.startsWith(other) || text.startsWith("\\")) continue;
    lines.add(at++);
  }
  return lines;
}

export interface CreatedCommit {
  sha: string;
  message: string;
  author: { name: string; email: string; date?: string };
  /** Set when the request named a committer; GitHub signs only when none is given. */
  committer?: unknown;
  parents: string[];
}

export interface FakeGitData {
  commits: CreatedCommit[];
  blobs: number;
  routes: FakeRoute[];
  close(): void;
}

/** The Git Data API over a real bare repository at `gitDir`. */
export function fakeGitData(base: string, gitDir: string): FakeGitData {
  const scratch = mkdtempSync(join(tmpdir(), "pw-gitdata-"));
  const commits: CreatedCommit[] = [];
  let blobs = 0;
  const git = (args: string[], input?: Buffer | string, env: Record<string, string> = {}) =>
    runSync("git", ["--git-dir", gitDir, ...args], {
      cwd: process.cwd(),
      env: { ...process.env, ...env },
      input,
    }).trim();
  const routes: FakeRoute[] = [
    [
      "POST",
      new RegExp(`^${base}/git/blobs$`),
      (_m, body) => {
        blobs += 1;
        const content =
          body.encoding === "base64"
            ? Buffer.from(String(body.content), "base64")
            : Buffer.from(String(body.content));
        return ok({ sha: git(["hash-object", "-w", "--stdin"], content) }, 201);
      },
    ],
    [
      "POST",
      new RegExp(`^${base}/git/trees$`),
      (_m, body) => {
        const index = join(scratch, `index-${Date.now()}-${Math.random()}`);
        const env = { GIT_INDEX_FILE: index };
        if (body.base_tree) git(["read-tree", String(body.base_tree)], undefined, env);
        const lines = (body.tree as Array<{ path: string; mode: string; sha: string | null }>).map(
          (entry) =>
            entry.sha === null
              ? `0 ${"0".repeat(40)}\t${entry.path}`
              : `${entry.mode} ${entry.sha}\t${entry.path}`,
        );
        git(["update-index", "--index-info"], `${lines.join("\n")}\n`, env);
        const sha = git(["write-tree"], undefined, env);
        rmSync(index, { force: true });
        return ok({ sha }, 201);
      },
    ],
    [
      "POST",
      new RegExp(`^${base}/git/commits$`),
      (_m, body) => {
        const author = body.author as CreatedCommit["author"];
        const parents = body.parents as string[];
        const sha = git(
          ["commit-tree", String(body.tree), ...parents.flatMap((p) => ["-p", p]), "-F", "-"],
          `${String(body.message)}\n`,
          {
            GIT_AUTHOR_NAME: author.name,
            GIT_AUTHOR_EMAIL: author.email,
            ...(author.date ? { GIT_AUTHOR_DATE: author.date } : {}),
            GIT_COMMITTER_NAME: "GitHub",
            GIT_COMMITTER_EMAIL: "noreply@github.com",
          },
        );
        commits.push({
          sha,
          message: String(body.message),
          author,
          parents,
          ...(body.committer ? { committer: body.committer } : {}),
        });
        return ok({ sha, tree: { sha: body.tree }, verification: { verified: true } }, 201);
      },
    ],
    [
      "GET",
      new RegExp(`^${base}/git/ref/(.+)$`),
      (m) => {
        try {
          const sha = git(["rev-parse", "--verify", `refs/${decodeURIComponent(m[1] ?? "")}`]);
          return ok({ object: { sha, type: "commit" } });
        } catch {
          return ok({ message: "Not Found" }, 404);
        }
      },
    ],
    [
      "POST",
      new RegExp(`^${base}/git/refs$`),
      (_m, body) => {
        git(["update-ref", String(body.ref), String(body.sha), ""]);
        return ok({ ref: body.ref, object: { sha: body.sha } }, 201);
      },
    ],
    [
      "PATCH",
      new RegExp(`^${base}/git/refs/(.+)$`),
      (m, body) => {
        const ref = `refs/${decodeURIComponent(m[1] ?? "")}`;
        const old = git(["rev-parse", "--verify", ref]);
        if (!body.force) {
          try {
            git(["merge-base", "--is-ancestor", old, String(body.sha)]);
          } catch {
            return ok({ message: "Update is not a fast forward" }, 422);
          }
        }
        git(["update-ref", ref, String(body.sha), old]);
        return ok({ ref, object: { sha: body.sha } });
      },
    ],
  ];
  return {
    commits,
    get blobs() {
      return blobs;
    },
    routes,
    close: () => rmSync(scratch, { recursive: true, force: true }),
  };
}
