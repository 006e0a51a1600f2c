import { execFileSync } from "node:child_process";
import { DEFAULT_BOT_EMAIL } from "../../src/config/schema.js";
import type { Harness, Payload } from "./app-harness.js";
import { aim, examplePayload } from "./app-harness.js";
import type { FakeRoute } from "./fake-github.js";

/**
 * The bot's pull requests and their failed CI runs, for tests that drive the
 * upkeep jobs through the App (see fake-github-upkeep.ts for the API side).
 */

export const BOT = "patchwright[bot]";
export const BOT_BRANCH = "agent/issue-7-add-returns-the-wrong-sum";

export function addBotPull(h: Harness, number: number, branch = BOT_BRANCH, user = BOT) {
  h.github.addPull({
    number,
    title: "Fix add",
    body: "",
    draft: false,
    head: {
      ref: branch,
      sha: h.repo.sha(branch) ?? "",
      repo: { full_name: "octo-org/demo", clone_url: h.repo.url },
    },
    base: { ref: "main", repo: { full_name: "octo-org/demo" } },
    user: { login: user, type: user.endsWith("[bot]") ? "Bot" : "User" },
  });
}

/** A completed Actions run with one failed job whose log is `log`. */
export function failingRun(sha: string, onRerun: "success" | "failure", log: string) {
  return {
    id: 901,
    name: "CI",
    head_sha: sha,
    status: "completed",
    conclusion: "failure",
    run_attempt: 1,
    onRerun,
    jobs: [
      {
        id: 3301,
        name: "test",
        conclusion: "failure",
        steps: [
          { name: "Run actions/checkout@v5", conclusion: "success", number: 1 },
          { name: "Run npm test", conclusion: "failure", number: 2 },
        ],
        log,
      },
    ],
  };
}

/** A failed `workflow_run` or `check_suite` on the head of pull request `number`. */
export function ciFailed(
  h: Harness,
  event: "workflow_run" | "check_suite",
  number: number,
  branch: string,
): Payload {
  const payload = aim(examplePayload(event, "completed"), h.repo.url, { login: BOT, type: "Bot" });
  const sha = h.repo.sha(branch) ?? "";
  Object.assign(payload[event], {
    id: 901,
    head_sha: sha,
    conclusion: "failure",
    pull_requests: [
      {
        number,
        id: 1,
        url: "x",
        head: { ref: branch, sha, repo: {} },
        base: { ref: "main", sha: "x", repo: {} },
      },
    ],
  });
  return payload;
}

export const DEPENDABOT = "dependabot[bot]";
/** How Dependabot's commits are signed: its account's noreply address. */
export const DEPENDABOT_AUTHOR = {
  name: DEPENDABOT,
  email: "49699333+dependabot[bot]@users.noreply.github.com",
};

/**
 * A pull request's commits as GitHub lists them (`GET .../pulls/N/commits`),
 * read from the bare repository: an author login for the accounts GitHub
 * knows by their address (Dependabot's, patchwright's), none for a person's
 * local address.
 */
export function pullCommitsRoute(
  base: string,
  repoDir: () => string,
  branchOf: (pr: number) => string,
): FakeRoute {
  return [
    "GET",
    new RegExp(`^${base}/pulls/(\\d+)/commits$`),
    (m) => {
      const log = execFileSync(
        "git",
        [
          "--git-dir",
          repoDir(),
          "log",
          "--format=%H%x09%an%x09%ae",
          `main..${branchOf(Number(m[1]))}`,
        ],
        { encoding: "utf8" },
      ).trim();
      const commits = log
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const [sha, name, email] = line.split("\t");
          const login =
            email === DEPENDABOT_AUTHOR.email
              ? DEPENDABOT
              : email === DEFAULT_BOT_EMAIL
                ? BOT
                : undefined;
          return {
            sha,
            commit: { author: { name, email }, message: "" },
            author: login ? { login, type: "Bot" } : null,
          };
        });
      return { status: 200, body: commits };
    },
  ];
}
