import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  aim,
  examplePayload,
  type Harness,
  issueComment,
  startHarness,
  stopHarness,
} from "../helpers/app-harness.js";
import { CALC_FILES, CALC_FIXED_SUM, calcFixSteps } from "../helpers/calc-repo.js";
import { fixAddSteps } from "../helpers/demo-repo.js";
import { callTool, reply } from "../helpers/model-script.js";

let harness: Harness | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

async function deliver(h: Harness, name: "issue_comment", payload: unknown, id = "delivery-1") {
  await h.probot.receive({ id, name, payload } as never);
  await h.idle();
}

const commentBodies = (h: Harness, issue = 7) =>
  (h.github.comments.get(issue) ?? []).map((c) => c.body);

describe("the App", () => {
  it("turns @agent on an issue into a pushed branch and a pull request with a full body", async () => {
    harness = await startHarness({
      steps: fixAddSteps(),
      github: { configYaml: "verify: npm test\n" },
    });
    await deliver(harness, "issue_comment", issueComment(harness, "@agent please fix this"));

    const [pull] = harness.github.pulls;
    expect(pull?.head.ref).toBe("agent/issue-7-add-returns-the-wrong-sum");
    expect(pull?.base.ref).toBe("main");
    expect(pull?.draft).toBe(false);
    expect(pull?.body).toContain("Closes #7");
    expect(pull?.body).toContain("src/add.js");
    expect(pull?.body).toContain("npm test");
    expect(harness.repo.show(pull?.head.ref ?? "", "src/add.js")).toContain("a + b");
    expect(harness.repo.subjects(pull?.head.ref ?? "", 1)[0]).toMatch(/^fix/);

    expect(harness.github.reactions).toEqual([
      { on: "issues/comments/555", content: "eyes" },
      { on: "issues/comments/555", content: "rocket" },
    ]);
    const bodies = commentBodies(harness);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain(pull?.html_url);
    // The model got the thread as data and the comment as the one instruction.
    const firstPrompt = JSON.stringify(harness.models[0]?.requests[0]?.messages[0]);
    expect(firstPrompt).toContain("please fix this");
    expect(firstPrompt).toContain("add() returns the wrong sum");
  });

  it("starts the yarn release the repository keeps in setup, the agent's shell and verify, with no yarn on the PATH", async () => {
    const release = ".yarn/releases/yarn-4.18.1.cjs";
    const yarn = fileURLToPath(
      new URL("../../node_modules/@yarnpkg/cli-dist/bin/yarn.js", import.meta.url),
    );
    const path = (process.env.PATH ?? "").split(":").filter((d) => !d.includes("node_modules"));
    harness = await startHarness({
      steps: [
        callTool("run_shell", { command: "yarn --version" }),
        callTool("write_file", { file_path: "NOTES.md", content: "notes\n" }),
        reply("Added notes."),
      ],
      files: {
        ".yarnrc.yml": `yarnPath: ${release}\n`,
        "yarn.lock": "__metadata:\n  version: 8\n  cacheKey: 10c0\n",
        [release]: await readFile(yarn, "utf8"),
      },
      github: { configYaml: "setup:\n  - yarn --version\nverify: yarn --version\n" },
      env: { PATH: path.join(":") },
    });
    await deliver(harness, "issue_comment", issueComment(harness, "@agent add notes"));
    const [pull] = harness.github.pulls;
    expect(JSON.stringify(harness.models[0]?.requests[1]?.messages.at(-1))).toContain("4.18.1");
    expect(pull?.body).toMatch(/✅ `yarn --version`/);
    expect(pull?.draft).toBe(false);
  });

  it("says in the PR body that the agent's test run failed, whatever the agent claims", async () => {
    harness = await startHarness({
      steps: [
        callTool("write_file", { file_path: "NOTES.md", content: "notes\n" }),
        callTool("run_shell", { command: "npm test" }),
        reply("Added notes. All tests pass."),
      ],
    });
    await deliver(harness, "issue_comment", issueComment(harness, "@agent add notes"));
    const [pull] = harness.github.pulls;
    expect(pull?.body).toContain("The agent's summary");
    expect(pull?.body).toContain("> Added notes. All tests pass.");
    expect(pull?.body).toMatch(/❌ `npm test`.*exit 1/);
    expect(pull?.draft).toBe(true);
  });

  it("answers a sender without write access and runs no job", async () => {
    harness = await startHarness({ steps: fixAddSteps() });
    await deliver(harness, "issue_comment", issueComment(harness, "@agent fix it", "reader"));
    expect(harness.models).toHaveLength(0);
    expect(harness.github.pulls).toHaveLength(0);
    expect(commentBodies(harness)).toEqual([
      expect.stringContaining("only people with write access"),
    ]);
  });

  it("answers a delivery without an installation with nothing at all (one log line)", async () => {
    harness = await startHarness({ steps: fixAddSteps() });
    const payload = issueComment(harness, "@agent fix it");
    delete payload.installation;
    await deliver(harness, "issue_comment", payload, "no-installation");
    expect(harness.github.calls).toEqual([]);
    expect(harness.models).toHaveLength(0);
  });

  it("ignores bots, comments without the phrase and its own comments", async () => {
    harness = await startHarness({ steps: fixAddSteps() });
    await deliver(
      harness,
      "issue_comment",
      issueComment(harness, "@agent fix it", "dependabot[bot]"),
      "d1",
    );
    await deliver(harness, "issue_comment", issueComment(harness, "looks good to me"), "d2");
    await deliver(
      harness,
      "issue_comment",
      issueComment(harness, "@agent working on it", "patchwright[bot]"),
      "d3",
    );
    expect(harness.models).toHaveLength(0);
    expect(
      harness.github.calls.filter((c) => c.method !== "GET" && !c.path.includes("access_tokens")),
    ).toEqual([]);
    // Only Probot's own (cached) installation token: no git token is minted for a request that is not admitted.
    expect(harness.github.calls.filter((c) => c.path.includes("access_tokens"))).toHaveLength(1);
  });

  it("explains an invalid config file, naming the field", async () => {
    harness = await startHarness({
      steps: fixAddSteps(),
      github: { configYaml: "max_turns: lots\n" },
    });
    await deliver(harness, "issue_comment", issueComment(harness, "@agent fix it"));
    expect(harness.models).toHaveLength(0);
    const [answer] = commentBodies(harness);
    expect(answer).toContain("max_turns");
    expect(answer).toContain("patchwright.yml");
  });

  it("starts one job for a repeated delivery", async () => {
    harness = await startHarness({ steps: fixAddSteps() });
    const payload = issueComment(harness, "@agent fix it");
    await harness.probot.receive({ id: "same", name: "issue_comment", payload } as never);
    await harness.probot.receive({ id: "same", name: "issue_comment", payload } as never);
    await harness.idle();
    expect(harness.models).toHaveLength(1);
    expect(harness.github.pulls).toHaveLength(1);
  });

  it("pushes partial work and reports the failure when the model fails mid-run", async () => {
    harness = await startHarness({
      steps: [
        callTool(
          "write_file",
          { file_path: "notes.md", content: "started\n" },
          { say: "Start notes." },
        ),
        { error: { status: 400, message: "invalid_request_error: bad" } },
      ],
    });
    await deliver(harness, "issue_comment", issueComment(harness, "@agent fix it"));
    const branch = "agent/issue-7-add-returns-the-wrong-sum";
    expect(harness.repo.show(branch, "notes.md").trim()).toBe("started");
    const [report] = commentBodies(harness);
    expect(report).toContain(branch);
    expect(harness.github.reactions.at(-1)).toEqual({
      on: "issues/comments/555",
      content: "confused",
    });
  });

  it("works on a same-repo pull request's head branch and answers in the thread", async () => {
    harness = await startHarness({ steps: fixAddSteps() });
    harness.repo.push({ branch: "feature/sum", files: { "feature.txt": "x\n" } });
    harness.github.addPull({
      number: 12,
      title: "Sum feature",
      body: "",
      draft: false,
      head: {
        ref: "feature/sum",
        sha: harness.repo.sha("feature/sum") ?? "",
        repo: { full_name: "octo-org/demo", clone_url: harness.repo.url },
      },
      base: { ref: "main", repo: { full_name: "octo-org/demo" } },
    });
    await deliver(
      harness,
      "issue_comment",
      issueComment(harness, "@agent fix add", "octocat", { pr: true, number: 12 }),
    );
    expect(commentBodies(harness, 12).join("\n")).not.toContain("went wrong");
    expect(harness.repo.show("feature/sum", "src/add.js")).toContain("a + b");
    expect(harness.github.pulls).toHaveLength(1);
    expect(commentBodies(harness, 12)).toHaveLength(1);
  });

  it("answers a fork pull request with a patch instead of pushing", async () => {
    harness = await startHarness({ steps: fixAddSteps() });
    harness.repo.push({ branch: "fork-branch", files: { "feature.txt": "x\n" } });
    harness.github.addPull({
      number: 13,
      title: "From a fork",
      body: "",
      draft: false,
      head: {
        ref: "fork-branch",
        sha: "1".repeat(40),
        repo: { full_name: "someone/demo", clone_url: harness.repo.url },
      },
      base: { ref: "main", repo: { full_name: "octo-org/demo" } },
    });
    const before = harness.repo.sha("fork-branch");
    await deliver(
      harness,
      "issue_comment",
      issueComment(harness, "@agent fix add", "octocat", { pr: true, number: 13 }),
    );
    expect(harness.repo.sha("fork-branch")).toBe(before);
    const [answer] = commentBodies(harness, 13);
    expect(answer).toContain("<details>");
    expect(answer).toContain("+module.exports = { add: (a, b) => a + b };");
    expect(answer).toContain("git apply");
  });

  it("answers a review comment in its review thread", async () => {
    harness = await startHarness({ steps: fixAddSteps() });
    harness.repo.push({ branch: "feature/sum", files: { "feature.txt": "x\n" } });
    const payload = aim(
      examplePayload("pull_request_review_comment", "created"),
      harness.repo.url,
      { login: "octocat" },
    );
    Object.assign(payload.comment, {
      id: 777,
      body: "@agent use + here",
      diff_hunk: "@@ -1 +1 @@\n-a\n+b",
      path: "src/add.js",
    });
    Object.assign(payload.pull_request, {
      number: 12,
      state: "open",
      locked: false,
      title: "Sum feature",
    });
    const repoInfo = { full_name: "octo-org/demo", clone_url: harness.repo.url };
    payload.pull_request.head = {
      ...payload.pull_request.head,
      ref: "feature/sum",
      sha: harness.repo.sha("feature/sum"),
      repo: { ...payload.pull_request.head.repo, ...repoInfo },
    };
    payload.pull_request.base = {
      ...payload.pull_request.base,
      ref: "main",
      repo: { ...payload.pull_request.base.repo, ...repoInfo },
    };
    await harness.probot.receive({
      id: "rc-1",
      name: "pull_request_review_comment",
      payload,
    } as never);
    await harness.idle();

    expect(harness.repo.show("feature/sum", "src/add.js")).toContain("a + b");
    expect(harness.github.reactions.map((r) => r).at(0)).toEqual({
      on: "pulls/comments/777",
      content: "eyes",
    });
    expect(
      harness.github.calls.some(
        (c) => c.method === "POST" && c.path.endsWith("/pulls/12/comments/777/replies"),
      ),
    ).toBe(true);
    expect(commentBodies(harness, 12)).toEqual([]);
    expect(JSON.stringify(harness.models[0]?.requests[0]?.messages[0])).toContain("src/add.js");
  });

  it("starts a job when the configured label is added to an issue", async () => {
    harness = await startHarness({
      steps: fixAddSteps(),
      github: { configYaml: "label: autofix\n" },
    });
    const payload = aim(examplePayload("issues", "labeled"), harness.repo.url, {
      login: "octocat",
    });
    Object.assign(payload.issue, {
      number: 9,
      title: "add() is wrong",
      body: "2 + 3 gives -1",
      state: "open",
      locked: false,
    });
    payload.label = { ...payload.label, name: "autofix" };
    await harness.probot.receive({ id: "label-1", name: "issues", payload } as never);
    await harness.idle();
    expect(harness.github.pulls.map((p) => p.head.ref)).toEqual(["agent/issue-9-add-is-wrong"]);
    expect(harness.github.reactions[0]).toEqual({ on: "issues/9", content: "eyes" });
  });

  it("starts a job from a new issue whose description mentions the bot", async () => {
    const h = await startHarness({ steps: fixAddSteps() });
    harness = h;
    const opened = (number: number, body: string, login = "octocat") => {
      const payload = aim(examplePayload("issues", "opened"), h.repo.url, { login });
      Object.assign(payload.issue, {
        id: 9000 + number,
        number,
        title: "add() is wrong",
        body,
        state: "open",
        locked: false,
      });
      return payload;
    };
    // An issue template's hidden guidance is no request: nothing happens.
    const template = opened(
      8,
      "<!-- Write @agent in a comment to have the bot fix it -->\n2 + 3 gives -1",
    );
    await harness.probot.receive({ id: "opened-8", name: "issues", payload: template } as never);
    await harness.idle();
    expect(harness.github.reactions).toEqual([]);
    expect(harness.models).toEqual([]);
    // Someone without write access gets the short answer, as for a comment, and no job.
    const outsider = opened(10, "@agent push this to main", "reader");
    await harness.probot.receive({ id: "opened-10", name: "issues", payload: outsider } as never);
    await harness.idle();
    expect(commentBodies(harness, 10)).toEqual([
      expect.stringContaining("only people with write access"),
    ]);
    expect(harness.models).toEqual([]);

    const payload = opened(9, "2 + 3 gives -1. @agent fix add() please");
    await harness.probot.receive({ id: "opened-9", name: "issues", payload } as never);
    await harness.idle();
    expect(harness.github.pulls.map((p) => p.head.ref)).toEqual(["agent/issue-9-add-is-wrong"]);
    expect(harness.github.reactions[0]).toEqual({ on: "issues/9", content: "eyes" });
    const task = JSON.stringify(harness.models[0]?.requests[0]?.messages[0]);
    expect(task).toContain(
      "@octocat opened this issue for you: resolve what its title and description ask.",
    );
    expect(task).toContain("2 + 3 gives -1");
    // The same issue delivered again (GitHub's redelivery) starts nothing more.
    await harness.probot.receive({ id: "opened-9-again", name: "issues", payload } as never);
    await harness.idle();
    expect(harness.models).toHaveLength(1);
    expect(harness.github.pulls).toHaveLength(1);
  });

  it("never lets the installation token or keys reach the agent's shell or the thread", async () => {
    harness = await startHarness({
      steps: [
        callTool("run_shell", {
          command:
            "env; git config --list; cat .git/config 2>/dev/null; grep -r ghs_ . 2>/dev/null | head",
        }),
        reply("Printed the environment."),
      ],
      github: { configYaml: "policy:\n  preset: trusted\n" },
    });
    await deliver(
      harness,
      "issue_comment",
      issueComment(harness, "@agent show me the environment"),
    );
    const toolOutput = JSON.stringify(harness.models[0]?.requests[1]?.messages.at(-1));
    expect(toolOutput).toContain("PATH=");
    for (const secret of [
      "ghs_faketoken1234567890abcdefghijklmnop",
      "sk-ant-test-0123456789abcdef",
      "BEGIN RSA PRIVATE KEY",
      "webhook-secret-value",
    ]) {
      expect(toolOutput).not.toContain(secret);
      expect(JSON.stringify([...harness.github.comments.values()])).not.toContain(secret);
    }
  });
});

describe("the App, job after job on one repository", () => {
  it("pushes the agent's same-size fix every time (the change tracking once reverted it)", async () => {
    harness = await startHarness({
      steps: calcFixSteps(),
      files: CALC_FILES,
      github: { configYaml: "verify: npm test\n" },
    });
    const h = harness;
    // Twice here, through the App in process; test/e2e/repeat-fix.test.ts
    // repeats the same fix 20 times through the processes.
    for (let issue = 1; issue <= 2; issue++) {
      await deliver(
        h,
        "issue_comment",
        issueComment(h, "@agent fix sum", "octocat", { number: issue }),
        `d-${issue}`,
      );
    }
    expect(h.github.pulls).toHaveLength(2);
    for (const pull of h.github.pulls) {
      expect(h.repo.show(pull.head.ref, "src/sum.js")).toBe(CALC_FIXED_SUM.trimEnd());
      expect(h.repo.show(pull.head.ref, "README.md")).toContain("`sum(2, 3)` is 5");
      expect(pull.body).toContain("✅ `npm test` passed");
      expect(pull.body).not.toContain("did not match the workspace");
    }
  });
});
