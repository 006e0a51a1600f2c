import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_BOT_EMAIL, DEFAULT_BOT_NAME } from "../../src/config/schema.js";
import { REVIEW_MARKER } from "../../src/github/pull-review.js";
import { CI_FIX_MARKER } from "../../src/thread/kinds/ci-fix.js";
import {
  aim,
  type Harness,
  issueComment,
  type Payload,
  startHarness,
  stopHarness,
} from "../helpers/app-harness.js";
import {
  addBotPull,
  BOT,
  BOT_BRANCH,
  ciFailed,
  DEPENDABOT,
  DEPENDABOT_AUTHOR,
  failingRun as failedRun,
  pullCommitsRoute,
} from "../helpers/ci-world.js";
import { fixAddSteps } from "../helpers/demo-repo.js";
import type { FakeRoute } from "../helpers/fake-github.js";
import { fakeActions, fakeGitData, fakeReviews } from "../helpers/fake-github-upkeep.js";
import { callTool, reply } from "../helpers/model-script.js";

/**
 * The jobs that keep pull requests mergeable, end to end through the App:
 * webhooks in, a fake GitHub that serves Actions runs, logs and re-runs,
 * reviews, mergeability and the Git Data API, and a real repository.
 */

const BASE = "/repos/octo-org/demo";

let harness: Harness | undefined;
let closeGitData: (() => void) | undefined;
afterEach(async () => {
  await stopHarness(harness);
  closeGitData?.();
  harness = undefined;
  closeGitData = undefined;
});

async function deliver(h: Harness, name: string, payload: unknown, id = "delivery-1") {
  await h.probot.receive({ id, name, payload } as never);
  await h.idle();
}

const bodies = (h: Harness, issue: number) =>
  (h.github.comments.get(issue) ?? []).map((c) => c.body);

const FAILING_LOG = [
  "2026-11-30T10:00:00.0000000Z ##[group]Run actions/checkout@v5",
  "2026-11-30T10:00:01.0000000Z Syncing repository: octo-org/demo",
  "2026-11-30T10:00:02.0000000Z ##[endgroup]",
  "2026-11-30T10:00:03.0000000Z ##[group]Run npm test",
  "2026-11-30T10:00:03.1000000Z npm test",
  "2026-11-30T10:00:03.2000000Z ##[endgroup]",
  "2026-11-30T10:00:04.0000000Z node:assert:90",
  "2026-11-30T10:00:04.0000000Z AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
  "2026-11-30T10:00:04.0000000Z -1 !== 5",
  "2026-11-30T10:00:04.0000000Z     at Object.<anonymous> (/home/runner/work/demo/test.js:2:8)",
  "2026-11-30T10:00:05.0000000Z ##[error]Process completed with exit code 1.",
].join("\n");

const failingRun = (sha: string, onRerun: "success" | "failure") =>
  failedRun(sha, onRerun, FAILING_LOG);

const workflowRunFailed = (h: Harness, number: number, branch: string) =>
  ciFailed(h, "workflow_run", number, branch);
const checkSuiteFailed = (h: Harness, number: number, branch: string) =>
  ciFailed(h, "check_suite", number, branch);

async function upkeepHarness(options: {
  steps: Parameters<typeof startHarness>[0]["steps"];
  config?: string;
  tokenPermissions?: Record<string, string>;
}) {
  const routes: FakeRoute[] = [];
  const h = await startHarness({
    steps: options.steps,
    github: {
      configYaml: options.config ?? "verify: npm test\n",
      routes,
      ...(options.tokenPermissions ? { tokenPermissions: options.tokenPermissions } : {}),
    },
  });
  const actions = fakeActions(BASE);
  const reviews = fakeReviews(BASE, BOT);
  const gitData = fakeGitData(BASE, h.repo.dir);
  closeGitData = gitData.close;
  routes.push(...actions.routes, ...reviews.routes, ...gitData.routes);
  return { h, actions, reviews, gitData, routes };
}

describe("failing CI on the bot's pull requests", () => {
  it("re-runs once, then fixes a real failure with one commit, logs in hand", async () => {
    const { h, actions } = await upkeepHarness({ steps: fixAddSteps() });
    harness = h;
    h.repo.push({ branch: BOT_BRANCH, files: { "notes.txt": "wip\n" } });
    addBotPull(h, 20);
    const before = h.repo.sha(BOT_BRANCH) ?? "";
    actions.runs.push(failingRun(before, "failure"));

    // GitHub sends both for one Actions run: one job.
    await deliver(h, "workflow_run", workflowRunFailed(h, 20, BOT_BRANCH), "d-run");
    await deliver(h, "check_suite", checkSuiteFailed(h, 20, BOT_BRANCH), "d-suite");

    expect(actions.reruns).toEqual([901]);
    expect(h.repo.show(BOT_BRANCH, "src/add.js")).toContain("a + b");
    const after = execFileSync("git", [
      "--git-dir",
      h.repo.dir,
      "rev-list",
      `${before}..${BOT_BRANCH}`,
    ])
      .toString()
      .trim()
      .split("\n");
    expect(after).toHaveLength(1);
    const comments = bodies(h, 20);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toContain("CI fix attempt 1 of 2");
    expect(comments[0]).toContain(CI_FIX_MARKER);
    expect(h.models).toHaveLength(1);
    const prompt = JSON.stringify(h.models[0]?.requests[0]?.messages[0]);
    // The failing step's error lines reached the agent, as data, without the runner's timestamps.
    expect(prompt).toContain("AssertionError [ERR_ASSERTION]");
    expect(prompt).toContain("<attachment name=");
    expect(prompt).not.toContain("2026-11-30T10:00:04");
  });

  it("goes on to the fix, and says why, when GitHub refuses the re-run (no actions: write)", async () => {
    const { h, actions } = await upkeepHarness({ steps: fixAddSteps() });
    harness = h;
    h.repo.push({ branch: BOT_BRANCH, files: { "notes.txt": "wip\n" } });
    addBotPull(h, 26);
    actions.runs.push(failingRun(h.repo.sha(BOT_BRANCH) ?? "", "failure"));
    actions.refuseReruns = 403;
    await deliver(h, "workflow_run", workflowRunFailed(h, 26, BOT_BRANCH));
    expect(actions.reruns).toEqual([]);
    expect(h.repo.show(BOT_BRANCH, "src/add.js")).toContain("a + b");
    const report = bodies(h, 26).at(-1) ?? "";
    expect(report).toContain("CI fix attempt 1 of 2");
    expect(report).toMatch(/could not re-run the failed jobs of CI: .*actions: write/i);
    expect(report).not.toContain("went wrong");
  });

  it("starts nothing for its own fix's commit while that commit's run is pending, nor for the old head", async () => {
    const { h, actions } = await upkeepHarness({ steps: fixAddSteps() });
    harness = h;
    h.repo.push({ branch: BOT_BRANCH, files: { "notes.txt": "wip\n" } });
    addBotPull(h, 27);
    const old = h.repo.sha(BOT_BRANCH) ?? "";
    actions.runs.push(failingRun(old, "failure"));
    await deliver(h, "workflow_run", workflowRunFailed(h, 27, BOT_BRANCH), "d-1");
    const pushed = h.repo.sha(BOT_BRANCH) ?? "";
    expect(pushed).not.toBe(old);
    const pull = h.github.pulls.find((p) => p.number === 27);
    if (pull) pull.head.sha = pushed;
    // CI starts on the fix's commit: GitHub announces the run and suite as they begin.
    actions.runs.push({
      ...failingRun(pushed, "success"),
      id: 902,
      status: "in_progress",
      conclusion: null,
    });
    const started = workflowRunFailed(h, 27, BOT_BRANCH);
    started.action = "in_progress";
    Object.assign(started.workflow_run, { id: 902, status: "in_progress", conclusion: null });
    await deliver(h, "workflow_run", started, "d-2");
    const requested = checkSuiteFailed(h, 27, BOT_BRANCH);
    requested.action = "requested";
    Object.assign(requested.check_suite, { status: "queued", conclusion: null });
    await deliver(h, "check_suite", requested, "d-3");
    // The re-run of the old head's run ends in failure after the fix was pushed.
    const stale = workflowRunFailed(h, 27, BOT_BRANCH);
    Object.assign(stale.workflow_run, { head_sha: old, run_attempt: 2 });
    stale.workflow_run.pull_requests[0].head.sha = old;
    await deliver(h, "workflow_run", stale, "d-4");

    expect(h.models).toHaveLength(1);
    expect(actions.reruns).toEqual([901]);
    expect(h.repo.sha(BOT_BRANCH)).toBe(pushed);
    expect(bodies(h, 27)).toHaveLength(1);
  });

  it("starts no fix for a failure on a commit that is no longer the pull request's head", async () => {
    const { h, actions } = await upkeepHarness({ steps: fixAddSteps() });
    harness = h;
    h.repo.push({ branch: BOT_BRANCH, files: { "notes.txt": "wip\n" } });
    const old = h.repo.sha(BOT_BRANCH) ?? "";
    const failure = workflowRunFailed(h, 28, BOT_BRANCH);
    actions.runs.push(failingRun(old, "failure"));
    // Someone pushed since: the failed commit is behind the head.
    h.repo.push({ branch: BOT_BRANCH, files: { "notes.txt": "more\n" } });
    addBotPull(h, 28);
    await deliver(h, "workflow_run", failure);
    expect(actions.reruns).toEqual([]);
    expect(h.models).toHaveLength(0);
    expect(bodies(h, 28)).toEqual([]);
    expect(h.github.calls.some((c) => c.path.includes("/actions/"))).toBe(false);
  });

  it("fixes from another CI service's check run output when there are no Actions runs", async () => {
    const { h, actions } = await upkeepHarness({ steps: fixAddSteps() });
    harness = h;
    h.repo.push({ branch: BOT_BRANCH, files: { "notes.txt": "wip\n" } });
    addBotPull(h, 25);
    actions.checkRuns.push({
      name: "ci/circleci: test",
      head_sha: h.repo.sha(BOT_BRANCH) ?? "",
      conclusion: "failure",
      app: { slug: "circleci-checks" },
      output: { title: "1 test failed", summary: "add(2, 3) returned -1, expected 5" },
    });
    await deliver(h, "check_suite", checkSuiteFailed(h, 25, BOT_BRANCH));
    expect(actions.reruns).toEqual([]);
    expect(h.repo.show(BOT_BRANCH, "src/add.js")).toContain("a + b");
    const prompt = JSON.stringify(h.models[0]?.requests[0]?.messages[0]);
    expect(prompt).toContain("add(2, 3) returned -1, expected 5");
    expect(bodies(h, 25).at(-1)).toContain("CI fix attempt 1 of 2");
  });

  it("reports a failure that passes on re-run as flaky and changes nothing", async () => {
    const { h, actions } = await upkeepHarness({ steps: fixAddSteps() });
    harness = h;
    h.repo.push({ branch: BOT_BRANCH, files: { "notes.txt": "wip\n" } });
    addBotPull(h, 21);
    const before = h.repo.sha(BOT_BRANCH);
    actions.runs.push(failingRun(before ?? "", "success"));

    await deliver(h, "workflow_run", workflowRunFailed(h, 21, BOT_BRANCH));

    expect(actions.reruns).toEqual([901]);
    expect(h.repo.sha(BOT_BRANCH)).toBe(before);
    expect(h.models).toHaveLength(0);
    const [comment] = bodies(h, 21);
    expect(comment).toContain("flaky");
    expect(comment).toContain("No code was changed");
    expect(comment).toMatch(/fingerprint: `[0-9a-f]{12}`/);
  });

  it("stops at ci_fix.max_attempts and says so", async () => {
    const { h, actions } = await upkeepHarness({
      steps: fixAddSteps(),
      config: "ci_fix:\n  max_attempts: 1\n",
    });
    harness = h;
    h.repo.push({ branch: BOT_BRANCH, files: { "notes.txt": "wip\n" } });
    addBotPull(h, 22);
    actions.runs.push(failingRun(h.repo.sha(BOT_BRANCH) ?? "", "failure"));
    h.github.comments.set(22, [
      {
        id: 1,
        body: `earlier attempt ${CI_FIX_MARKER}`,
        user: { login: BOT, id: 1, type: "Bot" },
        created_at: "2026-11-29T10:00:00Z",
        html_url: "x",
      },
    ]);
    await deliver(h, "workflow_run", workflowRunFailed(h, 22, BOT_BRANCH));
    expect(actions.reruns).toEqual([]);
    expect(h.models).toHaveLength(0);
    expect(bodies(h, 22).at(-1)).toContain("already made 1 attempt");
  });

  it("leaves other people's pull requests alone", async () => {
    const { h, actions } = await upkeepHarness({ steps: fixAddSteps() });
    harness = h;
    h.repo.push({ branch: "feature/x", files: { "x.txt": "x\n" } });
    addBotPull(h, 23, "feature/x", "octocat");
    actions.runs.push(failingRun(h.repo.sha("feature/x") ?? "", "failure"));
    await deliver(h, "workflow_run", workflowRunFailed(h, 23, "feature/x"));
    expect(actions.reruns).toEqual([]);
    expect(bodies(h, 23)).toEqual([]);
  });

  it("fixes CI on any pull request when a writer asks: @agent fix CI", async () => {
    const { h, actions } = await upkeepHarness({ steps: fixAddSteps() });
    harness = h;
    h.repo.push({ branch: "feature/y", files: { "y.txt": "y\n" } });
    addBotPull(h, 24, "feature/y", "octocat");
    actions.runs.push(failingRun(h.repo.sha("feature/y") ?? "", "failure"));
    await deliver(
      h,
      "issue_comment",
      issueComment(h, "@agent fix CI", "octocat", { pr: true, number: 24 }),
    );
    expect(actions.reruns).toEqual([901]);
    expect(h.repo.show("feature/y", "src/add.js")).toContain("a + b");
    expect(bodies(h, 24).at(-1)).toContain("CI fix attempt 1 of 2");
  });
});

const CONFLICTING_MAIN = "module.exports = { add: (a, b) => b - a };\n";
const RESOLVED = "module.exports = { add: (a, b) => a + b };\n";

function pushPayload(h: Harness, after: string): Payload {
  return aim(
    {
      ref: "refs/heads/main",
      before: "0".repeat(40),
      after,
      deleted: false,
      repository: { owner: { login: "octo-org" } },
      sender: { login: "octocat" },
    },
    h.repo.url,
    { login: "octocat" },
  );
}

function resolveSteps() {
  return [
    callTool("read_file", { file_path: "src/add.js" }),
    callTool("write_file", { file_path: "src/add.js", content: RESOLVED }),
    reply("Resolved the conflict in src/add.js: kept the addition."),
  ];
}

async function conflictingBotPull(h: Harness, number: number) {
  h.repo.push({
    branch: BOT_BRANCH,
    files: { "src/add.js": "module.exports = { add: (a, b) => a * b };\n" },
  });
  // The base also changes a workflow: brought in by the update, it is not the job's change,
  // so the push goes ahead although the token lacks workflows: write.
  const main = h.repo.push({
    branch: "main",
    files: { "src/add.js": CONFLICTING_MAIN, ".github/workflows/ci.yml": "on: [push]\n" },
    message: "Swap the operands of add",
  });
  addBotPull(h, number);
  const pull = h.github.pulls.find((p) => p.number === number);
  if (pull) Object.assign(pull, { mergeable: false, mergeable_state: "dirty" });
  return main;
}

const git = (h: Harness, args: string[]) =>
  execFileSync("git", ["--git-dir", h.repo.dir, ...args])
    .toString()
    .trim();

describe("conflicts with the base branch", () => {
  it("merges the moved base into a conflicting bot PR, the agent resolving the file", async () => {
    const { h } = await upkeepHarness({ steps: resolveSteps() });
    harness = h;
    const main = await conflictingBotPull(h, 30);
    const before = h.repo.sha(BOT_BRANCH) ?? "";
    await deliver(h, "push", pushPayload(h, main));

    const tip = h.repo.sha(BOT_BRANCH) ?? "";
    expect(tip).not.toBe(before);
    expect(git(h, ["rev-list", "--parents", "-n", "1", tip]).split(" ")).toEqual([
      tip,
      before,
      main,
    ]);
    expect(h.repo.show(BOT_BRANCH, "src/add.js")).toBe(RESOLVED.trim());
    const prompt = JSON.stringify(h.models[0]?.requests[0]?.messages[0]);
    expect(prompt).toContain("<conflicts>");
    expect(prompt).toContain("<<<<<<<");
    expect(prompt).toContain(`${main.slice(0, 7)} Swap the operands of add`);
    expect(bodies(h, 30).join("\n")).not.toContain("went wrong");
  });

  it("leaves the branch untouched and names the files when the agent can't resolve them", async () => {
    const { h } = await upkeepHarness({ steps: [reply("I can't tell which side is right.")] });
    harness = h;
    const main = await conflictingBotPull(h, 31);
    const before = h.repo.sha(BOT_BRANCH);
    await deliver(h, "push", pushPayload(h, main));
    expect(h.repo.sha(BOT_BRANCH)).toBe(before);
    const comment = bodies(h, 31).at(-1) ?? "";
    expect(comment).toContain("left untouched");
    expect(comment).toContain("`src/add.js`");
  });

  it("rebases with update_strategy: rebase and force-pushes with a lease", async () => {
    const { h } = await upkeepHarness({
      steps: resolveSteps(),
      config: "update_strategy: rebase\n",
    });
    harness = h;
    const main = await conflictingBotPull(h, 32);
    await deliver(
      h,
      "issue_comment",
      issueComment(h, "@agent update branch", "octocat", { pr: true, number: 32 }),
    );
    const tip = h.repo.sha(BOT_BRANCH) ?? "";
    // Rebased: main is an ancestor and the history is linear (one parent).
    expect(() => git(h, ["merge-base", "--is-ancestor", main, tip])).not.toThrow();
    expect(git(h, ["rev-list", "--parents", "-n", "1", tip]).split(" ")).toHaveLength(2);
    expect(h.repo.show(BOT_BRANCH, "src/add.js")).toBe(RESOLVED.trim());
    // Mid-rebase HEAD already holds the base: its commits are still listed for the file.
    const prompt = JSON.stringify(h.models[0]?.requests[0]?.messages[0]);
    expect(prompt).toContain(`${main.slice(0, 7)} Swap the operands of add`);
  });

  it("merges instead of rebasing a branch that is not the bot's own (no force push there)", async () => {
    const { h } = await upkeepHarness({
      steps: resolveSteps(),
      config: "update_strategy: rebase\n",
    });
    harness = h;
    h.repo.push({
      branch: "feature/mul",
      files: { "src/add.js": "module.exports = { add: (a, b) => a * b };\n" },
    });
    const main = h.repo.push({ branch: "main", files: { "src/add.js": CONFLICTING_MAIN } });
    addBotPull(h, 34, "feature/mul", "octocat");
    const before = h.repo.sha("feature/mul") ?? "";
    await deliver(
      h,
      "issue_comment",
      issueComment(h, "@agent resolve conflicts", "octocat", { pr: true, number: 34 }),
    );
    const tip = h.repo.sha("feature/mul") ?? "";
    expect(git(h, ["rev-list", "--parents", "-n", "1", tip]).split(" ")).toEqual([
      tip,
      before,
      main,
    ]);
    expect(h.repo.show("feature/mul", "src/add.js")).toBe(RESOLVED.trim());
  });

  it("ignores the bot's own pushes", async () => {
    const { h } = await upkeepHarness({ steps: resolveSteps() });
    harness = h;
    const main = await conflictingBotPull(h, 35);
    const before = h.repo.sha(BOT_BRANCH);
    const payload = pushPayload(h, main);
    payload.sender = { ...payload.sender, login: BOT, type: "Bot" };
    await deliver(h, "push", payload);
    expect(h.repo.sha(BOT_BRANCH)).toBe(before);
    expect(h.models).toHaveLength(0);
    expect(h.github.calls.some((c) => c.method === "GET" && c.path.endsWith("/pulls"))).toBe(false);
  });

  it("does nothing when the moved base does not conflict", async () => {
    const { h } = await upkeepHarness({ steps: resolveSteps() });
    harness = h;
    h.repo.push({ branch: BOT_BRANCH, files: { "notes.txt": "x\n" } });
    const main = h.repo.push({ branch: "main", files: { "other.txt": "y\n" } });
    addBotPull(h, 33);
    const pull = h.github.pulls.find((p) => p.number === 33);
    if (pull) Object.assign(pull, { mergeable: true, mergeable_state: "clean" });
    const before = h.repo.sha(BOT_BRANCH);
    await deliver(h, "push", pushPayload(h, main));
    expect(h.repo.sha(BOT_BRANCH)).toBe(before);
    expect(bodies(h, 33)).toEqual([]);
    expect(h.models).toHaveLength(0);
  });
});

const PR_PATCH =
  "@@ -1 +1,3 @@\n-module.exports = { add: (a, b) => a - b };\n+module.exports = { add: (a, b) => a - b };\n+// subtracts\n+module.exports.sub = (a, b) => a - b;";

function reviewSteps(extra: ReturnType<typeof callTool>[] = []) {
  const comments = [
    {
      path: "src/add.js",
      line: 1,
      body: "add() subtracts.",
      suggestion: "module.exports = { add: (a, b) => a + b };",
    },
    { path: "src/add.js", line: 3, body: "sub() needs a test." },
    { path: "src/add.js", line: 40, body: "Far outside the diff." },
  ];
  return [
    callTool("read_file", { file_path: "src/add.js" }),
    ...extra,
    reply(
      `add() is wrong; see inline.\n\n\`\`\`review-comments\n${JSON.stringify(comments)}\n\`\`\``,
    ),
  ];
}

describe("another bot's dependency pull request (tend_bot_prs)", () => {
  const BRANCH = "dependabot/npm_and_yarn/left-pad-2.0.0";
  const TENDED = 'update_strategy: rebase\ntend_bot_prs:\n  bots: ["dependabot[bot]"]\n';

  async function dependabotPull(h: Harness, routes: FakeRoute[], patchwrightPushed: boolean) {
    h.repo.push({
      branch: BRANCH,
      files: { "notes.txt": "bump\n" },
      message: "Bump left-pad from 1.0.0 to 2.0.0",
      author: DEPENDABOT_AUTHOR,
    });
    if (patchwrightPushed) {
      h.repo.push({
        branch: BRANCH,
        files: { "src/add.js": "module.exports = { add: (a, b) => a * b };\n" },
        message: "Adapt add to left-pad 2",
        author: { name: DEFAULT_BOT_NAME, email: DEFAULT_BOT_EMAIL },
      });
    }
    const main = h.repo.push({ branch: "main", files: { "src/add.js": CONFLICTING_MAIN } });
    addBotPull(h, 36, BRANCH, DEPENDABOT);
    const pull = h.github.pulls.find((p) => p.number === 36);
    if (pull) Object.assign(pull, { mergeable: false, mergeable_state: "dirty" });
    routes.push(
      pullCommitsRoute(
        BASE,
        () => h.repo.dir,
        () => BRANCH,
      ),
    );
    return main;
  }

  it("keeps it up to date once patchwright pushed to it: the base merged in, never a rebase", async () => {
    const { h, routes } = await upkeepHarness({ steps: resolveSteps(), config: TENDED });
    harness = h;
    const main = await dependabotPull(h, routes, true);
    const before = h.repo.sha(BRANCH) ?? "";
    await deliver(h, "push", pushPayload(h, main));
    const tip = h.repo.sha(BRANCH) ?? "";
    expect(git(h, ["rev-list", "--parents", "-n", "1", tip]).split(" ")).toEqual([
      tip,
      before,
      main,
    ]);
    expect(h.repo.show(BRANCH, "src/add.js")).toBe(RESOLVED.trim());
  });

  it("leaves it to Dependabot while only Dependabot pushed to it", async () => {
    const { h, routes } = await upkeepHarness({ steps: resolveSteps(), config: TENDED });
    harness = h;
    const main = await dependabotPull(h, routes, false);
    const before = h.repo.sha(BRANCH);
    await deliver(h, "push", pushPayload(h, main));
    expect(h.repo.sha(BRANCH)).toBe(before);
    expect(bodies(h, 36)).toEqual([]);
    expect(h.models.flatMap((m) => m.requests)).toEqual([]);
  });
});

describe("review mode", () => {
  it("posts one review whose inline comments all land on diff lines, with suggestions", async () => {
    const { h, reviews } = await upkeepHarness({
      steps: reviewSteps([
        callTool("edit_file", {
          file_path: "src/add.js",
          old_string: "a - b",
          new_string: "a + b",
        }),
      ]),
    });
    harness = h;
    h.repo.push({ branch: "feature/sub", files: { "src/add.js": "x\n" } });
    addBotPull(h, 40, "feature/sub", "octocat");
    reviews.files.set(40, [{ filename: "src/add.js", patch: PR_PATCH }]);
    const before = h.repo.sha("feature/sub");

    await deliver(
      h,
      "issue_comment",
      issueComment(h, "@agent review", "octocat", { pr: true, number: 40 }),
    );

    expect(reviews.reviews).toHaveLength(1);
    const [review] = reviews.reviews;
    expect(review?.commit_id).toBe(before);
    expect(review?.event).toBe("COMMENT");
    expect(review?.comments.map((c) => c.line)).toEqual([1, 3]);
    expect(review?.comments[0]?.body).toContain(
      "```suggestion\nmodule.exports = { add: (a, b) => a + b };\n```",
    );
    expect(review?.body).toContain("Notes on lines outside the diff");
    expect(review?.body).toContain("`src/add.js:40`");
    // Read-only: the edit was refused and nothing was pushed.
    expect(h.repo.sha("feature/sub")).toBe(before);
    const results = JSON.stringify(h.models[0]?.requests.at(-1)?.messages);
    expect(results).toMatch(/read-only/);
    expect(bodies(h, 40).at(-1)).toContain("with 2 inline comments");
    // The pull request is read once, by the review's plan and the request's plan it builds on.
    expect(
      h.github.calls.filter((c) => c.method === "GET" && c.path.endsWith("/pulls/40")),
    ).toHaveLength(1);
  });

  it("re-reviews only what changed since its last review, and not at all without new commits", async () => {
    const { h, reviews } = await upkeepHarness({ steps: reviewSteps() });
    harness = h;
    h.repo.push({ branch: "feature/sub", files: { "src/add.js": "x\n" } });
    const first = h.repo.sha("feature/sub") ?? "";
    addBotPull(h, 41, "feature/sub", "octocat");
    reviews.files.set(41, [
      { filename: "src/add.js", patch: PR_PATCH },
      { filename: "README.md", patch: "@@ -1 +1 @@\n-a\n+b" },
    ]);
    await deliver(
      h,
      "issue_comment",
      issueComment(h, "@agent review", "octocat", { pr: true, number: 41 }),
    );
    expect(reviews.reviews).toHaveLength(1);

    // The same head again: nothing new to review.
    const again = issueComment(h, "@agent review", "octocat", { pr: true, number: 41 });
    again.comment.id = 556;
    await deliver(h, "issue_comment", again, "delivery-2");
    expect(reviews.reviews).toHaveLength(1);
    expect(bodies(h, 41).at(-1)).toContain("nothing new to review");

    const second = h.repo.push({ branch: "feature/sub", files: { "src/add.js": "y\n" } });
    const pull = h.github.pulls.find((p) => p.number === 41);
    if (pull) pull.head.sha = second;
    reviews.compare.set(`${first}...${second}`, [{ filename: "src/add.js", patch: PR_PATCH }]);
    const third = issueComment(h, "@agent review", "octocat", { pr: true, number: 41 });
    third.comment.id = 557;
    await deliver(h, "issue_comment", third, "delivery-3");
    expect(reviews.reviews).toHaveLength(2);
    expect(reviews.reviews[1]?.commit_id).toBe(second);
    expect(reviews.reviews[1]?.body).toContain(`since \`${first.slice(0, 7)}\``);
    const prompt = JSON.stringify(h.models.at(-1)?.requests[0]?.messages[0]);
    // The attached diff holds only what changed since (the file list still names the whole PR).
    expect(prompt).toContain("src/add.js");
    expect(prompt).not.toContain("--- README.md");
  });
});

describe("review comments through a tool", () => {
  const ADD_JS =
    "module.exports = { add: (a, b) => a - b };\n// subtracts\nmodule.exports.sub = (a, b) => a - b;\n";

  it("anchors each add_review_comment call on the diff, refusing a line outside it with the hunks", async () => {
    const { h, reviews } = await upkeepHarness({
      steps: [
        callTool("add_review_comment", { path: "src/add.js", line: 40, body: "Far away." }),
        callTool("add_review_comment", {
          path: "src/add.js",
          line: 1,
          body: "add() subtracts.",
          suggestion: "module.exports = { add: (a, b) => a + b };",
        }),
        callTool("add_review_comment", {
          path: "b/src/add.js",
          start_line: 2,
          line: 3,
          body: "sub() needs a test.",
        }),
        reply("add() is wrong; see the inline comments."),
      ],
    });
    harness = h;
    h.repo.push({ branch: "feature/sub", files: { "src/add.js": ADD_JS } });
    addBotPull(h, 44, "feature/sub", "octocat");
    reviews.files.set(44, [{ filename: "src/add.js", patch: PR_PATCH }]);

    await deliver(
      h,
      "issue_comment",
      issueComment(h, "@agent review", "octocat", { pr: true, number: 44 }),
    );

    const model = h.models[0];
    expect(model?.requests[0]?.tools.map((t) => t.name)).toContain("add_review_comment");
    // The refusal came back at once, naming the file's hunk and the lines it allows.
    expect(JSON.stringify(model?.requests[1]?.messages)).toMatch(
      /line 40 of src\/add.js \(side RIGHT, the new file\) is not a line of the diff\. Its hunks: @@ -1 \+1,3 @@ \(new lines 1-3\)/,
    );
    expect(reviews.reviews).toHaveLength(1);
    const [review] = reviews.reviews;
    expect(review?.comments.map((c) => [c.path, c.start_line, c.line])).toEqual([
      ["src/add.js", undefined, 1],
      ["src/add.js", 2, 3],
    ]);
    expect(review?.comments[0]?.body).toContain(
      "```suggestion\nmodule.exports = { add: (a, b) => a + b };\n```",
    );
    expect(review?.body).toContain("add() is wrong; see the inline comments.");
    expect(review?.body).not.toContain("Far away.");
    expect(bodies(h, 44).at(-1)).toContain("with 2 inline comments");
  });
});

describe("re-review after a base merge", () => {
  it("anchors comments only on lines of the pull request's own diff that changed since", async () => {
    const { h, reviews } = await upkeepHarness({ steps: reviewSteps() });
    harness = h;
    h.repo.push({ branch: "feature/sub", files: { "src/add.js": "x\n" } });
    const first = h.repo.sha("feature/sub") ?? "";
    addBotPull(h, 43, "feature/sub", "octocat");
    reviews.files.set(43, [{ filename: "src/add.js", patch: PR_PATCH }]);
    reviews.reviews.push({
      id: 1,
      commit_id: first,
      body: `Earlier review.\n\n${REVIEW_MARKER}`,
      event: "COMMENT",
      comments: [],
      user: { login: BOT },
    });
    // The base merged in: it changed line 40 of the file, which the PR never touched.
    const merged = h.repo.push({ branch: "feature/sub", files: { "src/add.js": "y\n" } });
    const pull = h.github.pulls.find((p) => p.number === 43);
    if (pull) pull.head.sha = merged;
    reviews.compare.set(`${first}...${merged}`, [
      {
        filename: "src/add.js",
        patch:
          "@@ -1 +1 @@\n-x\n+module.exports = { add: (a, b) => a - b };\n@@ -39,2 +39,2 @@\n ctx\n-old\n+new",
      },
    ]);
    await deliver(
      h,
      "issue_comment",
      issueComment(h, "@agent review", "octocat", { pr: true, number: 43 }),
    );
    expect(reviews.reviews).toHaveLength(2);
    const review = reviews.reviews[1];
    // Line 1: in the PR's diff and changed since. Line 3: not changed since. Line 40: not the PR's.
    expect(review?.comments.map((c) => c.line)).toEqual([1]);
    expect(review?.body).toContain("`src/add.js:3`");
    expect(review?.body).toContain("`src/add.js:40`");
    expect(bodies(h, 43).at(-1)).toContain("with 1 inline comment.");
  });
});

describe("signed commits", () => {
  it("creates the job's commits through the Git Data API, trailers and authors intact", async () => {
    const { h, gitData } = await upkeepHarness({
      steps: fixAddSteps(),
      config: "signed_commits: true\n",
    });
    harness = h;
    await deliver(h, "issue_comment", issueComment(h, "@agent please fix this"));
    const [pull] = h.github.pulls;
    const branch = pull?.head.ref ?? "";
    expect(h.repo.show(branch, "src/add.js")).toContain("a + b");
    expect(gitData.commits.length).toBeGreaterThan(0);
    for (const commit of gitData.commits) {
      // No committer: GitHub signs what it commits for the App.
      expect(commit.committer).toBeUndefined();
      expect(commit.author.name).toBe("patchwright[bot]");
      expect(commit.message).toContain("Co-authored-by:");
    }
    const tip = h.repo.sha(branch) ?? "";
    expect(tip).toBe(gitData.commits.at(-1)?.sha);
    expect(git(h, ["log", "-1", "--format=%cn", tip])).toBe("GitHub");
    // The PR body names the commits GitHub created, not the workspace's.
    expect(pull?.body).toContain(tip.slice(0, 7));
  });
});

describe("signed commits and branch updates", () => {
  it("creates a resolved merge through the API with both parents", async () => {
    const { h, gitData } = await upkeepHarness({
      steps: resolveSteps(),
      config: "signed_commits: true\n",
    });
    harness = h;
    const main = await conflictingBotPull(h, 36);
    const before = h.repo.sha(BOT_BRANCH) ?? "";
    await deliver(h, "push", pushPayload(h, main));
    const tip = h.repo.sha(BOT_BRANCH) ?? "";
    expect(gitData.commits.map((c) => c.sha)).toEqual([tip]);
    expect(gitData.commits[0]?.parents).toEqual([before, main]);
    expect(gitData.commits[0]?.committer).toBeUndefined();
    expect(h.repo.show(BOT_BRANCH, "src/add.js")).toBe(RESOLVED.trim());
  });
});

describe("workflow files", () => {
  const writeWorkflow = () => [
    callTool("write_file", { file_path: ".github/workflows/ci.yml", content: "on: push\n" }),
    reply("Tried to add a workflow."),
  ];

  it("tells the agent at once when the token cannot push workflow changes", async () => {
    const { h } = await upkeepHarness({ steps: writeWorkflow() });
    harness = h;
    await deliver(h, "issue_comment", issueComment(h, "@agent add CI"));
    const request = h.models[0]?.requests[0];
    expect(JSON.stringify(request?.system)).toContain("workflows: write");
    const result = JSON.stringify(h.models[0]?.requests[1]?.messages.at(-1));
    expect(result).toMatch(/denied|not allowed|refused/i);
    expect(h.github.pulls).toHaveLength(0);
  });

  it("pushes nothing, naming the file and the permission, when a shell command changed a workflow", async () => {
    const { h } = await upkeepHarness({
      steps: [
        callTool("run_shell", { command: "cp package.json .github/workflows/ci.yml" }),
        ...fixAddSteps(),
      ],
      // No verify: what is checked is the push step.
      config: "signed_commits: false\n",
    });
    harness = h;
    h.repo.push({ branch: "main", files: { ".github/workflows/ci.yml": "on: push\n" } });
    await deliver(h, "issue_comment", issueComment(h, "@agent fix add"));
    expect(h.github.pulls).toHaveLength(0);
    expect(git(h, ["branch", "--list", "agent/*"])).toBe("");
    const report = bodies(h, 7).at(-1) ?? "";
    expect(report).toContain("`.github/workflows/ci.yml`");
    expect(report).toContain("lacks the `workflows: write` permission");
    expect(report).toContain("Could not push");
  });

  it("lets the agent change workflows when the token has workflows: write", async () => {
    const { h } = await upkeepHarness({
      steps: writeWorkflow(),
      tokenPermissions: { contents: "write", workflows: "write" },
    });
    harness = h;
    await deliver(h, "issue_comment", issueComment(h, "@agent add CI"));
    const [pull] = h.github.pulls;
    expect(h.repo.show(pull?.head.ref ?? "", ".github/workflows/ci.yml")).toBe("on: push");
  });
});
