import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, issueComment, startHarness, stopHarness } from "../helpers/app-harness.js";
import { addBotPull, BOT_BRANCH, ciFailed, failingRun } from "../helpers/ci-world.js";
import { fixAddSteps } from "../helpers/demo-repo.js";
import type { FakeRoute } from "../helpers/fake-github.js";
import { fakeActions } from "../helpers/fake-github-upkeep.js";
import { reply } from "../helpers/model-script.js";
import {
  allFamilies,
  HIDDEN,
  leaks,
  secretFamilies,
  withHiddenCharacters,
} from "../helpers/secret-families.js";

/**
 * Secrets and hidden characters through the App's channels: an issue and its
 * thread, a failing CI job's log, another CI service's check run; and back
 * out: the model's words in the tracking comment, the pull request body and
 * the commit messages. Every model request and everything posted is searched
 * for a piece of any token family.
 */

const families = secretFamilies();
const LOG = withHiddenCharacters(allFamilies(families));

let harness: Harness | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

function sentToModels(h: Harness): string {
  return h.models.flatMap((m) => m.requests.map((r) => JSON.stringify(r))).join("\n");
}

function posted(h: Harness): string {
  const comments = [...h.github.comments.values()]
    .flat()
    .filter((c) => c.user.login.endsWith("[bot]"))
    .map((c) => c.body);
  const pulls = h.github.pulls.map((p) => `${p.title}\n${p.body}`);
  return [...comments, ...pulls].join("\n");
}

describe("red team: secrets in the App's channels", () => {
  it("the thread in, the model's words out: comment, pull request body, commits", async () => {
    const steps = fixAddSteps();
    steps[steps.length - 1] = reply(`Fixed add(). For the record, the log said:\n${LOG}`);
    harness = await startHarness({ steps });
    const h = harness;
    h.github.comments.set(7, [
      {
        id: 400,
        body: `Earlier run output:\n${LOG}`,
        user: { login: "octocat", id: 583231, type: "User" },
        created_at: "2019-01-01T00:00:00Z",
        html_url: "https://github.com/octo-org/demo/issues/7#issuecomment-400",
      },
    ]);
    const payload = issueComment(h, `@agent fix it, the error was ${LOG}`);
    payload.issue.body = `Steps to reproduce:\n${LOG}`;
    payload.issue.title = `add() breaks with token ${families[0]?.secrets[0]} \u202Eevil`;
    await h.probot.receive({ id: "d-thread", name: "issue_comment", payload } as never);
    await h.idle();

    const sent = sentToModels(h);
    expect(sent).toContain("Earlier run output");
    expect(leaks(families, sent)).toEqual([]);
    expect(sent).not.toMatch(HIDDEN);
    expect(h.github.pulls).toHaveLength(1);
    expect(posted(h)).toContain("[redacted: aws-secret-access-key]");
    expect(leaks(families, posted(h))).toEqual([]);
    // The model quoted the hidden characters too: shown, not posted.
    expect(posted(h)).not.toMatch(HIDDEN);
    expect(`${sent}\n${posted(h)}`).not.toMatch(/ghp_[A-Za-z0-9]{6,}/);
    // Commit messages and branch names: what a push carries besides files.
    const pushed = execFileSync("git", [
      "--git-dir",
      h.repo.dir,
      "log",
      "--all",
      "--format=%B%n%D",
    ]).toString();
    expect(pushed).toContain("redacted-github-token");
    expect(leaks(families, pushed)).toEqual([]);
  });

  it("a failing CI job's log and another CI service's check run output", async () => {
    const routes: FakeRoute[] = [];
    harness = await startHarness({
      steps: fixAddSteps(),
      github: { routes },
    });
    const h = harness;
    const actions = fakeActions("/repos/octo-org/demo");
    routes.push(...actions.routes);
    h.repo.push({ branch: BOT_BRANCH, files: { "notes.txt": "wip\n" } });
    addBotPull(h, 20);
    const sha = h.repo.sha(BOT_BRANCH) ?? "";
    const log = LOG.split("\n")
      .map((line) => `2026-11-30T10:00:04.0000000Z ${line}`)
      .join("\n");
    actions.runs.push(
      failingRun(sha, "failure", `${log}\n##[error]Process completed with exit code 1.`),
    );
    actions.checkRuns.push({
      name: `ci/other ${families[0]?.secrets[0]}`,
      head_sha: sha,
      conclusion: "failure",
      app: { slug: "other-ci" },
      output: { title: "tests failed", summary: LOG, text: LOG },
    });
    await h.probot.receive({
      id: "d-ci",
      name: "workflow_run",
      payload: ciFailed(h, "workflow_run", 20, BOT_BRANCH),
    } as never);
    await h.idle();

    expect(h.models).toHaveLength(1);
    const sent = sentToModels(h);
    expect(sent).toContain("<attachment name=");
    expect(sent).toContain("[redacted: ");
    expect(leaks(families, sent)).toEqual([]);
    expect(sent).not.toMatch(HIDDEN);
    expect(leaks(families, posted(h))).toEqual([]);
  });
});
