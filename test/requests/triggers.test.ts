import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { type JobRequest, triggerKey } from "../../src/requests/request.js";
import { parseTrigger, TriggerPayloadError } from "../../src/requests/triggers.js";
import { closedOrLocked, type StartRules, shouldStart } from "../../src/thread/start-rules.js";

// biome-ignore lint/suspicious/noExplicitAny: tests edit real webhook payloads field by field
type Payload = Record<string, any>;
interface ExampleGroup {
  name: string;
  examples: Payload[];
}

const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as ExampleGroup[];

/** A deep copy of a real payload from @octokit/webhooks-examples, so tests can edit it. */
function example(event: string, action: string, has: (p: Payload) => boolean = () => true) {
  const group = examples.find((g) => g.name === event);
  const found = group?.examples.find((p) => p.action === action && has(p));
  if (!found) throw new Error(`no ${event}.${action} example`);
  return structuredClone(found);
}

const issueComment = (body: string) => {
  const payload = example("issue_comment", "created", (p) => p.installation !== undefined);
  payload.comment.body = body;
  return payload;
};

/** The examples have no comment on a PR; the real payload only adds `issue.pull_request` links. */
const prComment = (body: string) => {
  const payload = issueComment(body);
  payload.issue.pull_request = {
    url: "https://api.github.com/repos/Codertocat/Hello-World/pulls/1",
    html_url: "https://github.com/Codertocat/Hello-World/pull/1",
    diff_url: "https://github.com/Codertocat/Hello-World/pull/1.diff",
    patch_url: "https://github.com/Codertocat/Hello-World/pull/1.patch",
  };
  return payload;
};

const rules: StartRules = {
  triggerPhrase: "@agent",
  label: "agent",
  allowedBots: ["renovate[bot]", "dependabot"],
  botLogin: "patchwright[bot]",
};

function parse(event: string, payload: unknown, delivery = "delivery-1"): JobRequest {
  const request = parseTrigger(event, payload, delivery);
  if (!request) throw new Error(`expected a request for ${event}`);
  return request;
}

describe("parseTrigger", () => {
  it("builds a request from issue_comment.created on an issue", () => {
    const request = parse("issue_comment", issueComment("@agent fix the typo"), "abc-123");
    expect(request).toEqual({
      trigger: "issue_comment",
      deliveryId: "abc-123",
      installationId: 1,
      repo: {
        owner: "Codertocat",
        name: "Hello-World",
        cloneUrl: "https://github.com/Codertocat/Hello-World.git",
        defaultBranch: "master",
        htmlUrl: "https://github.com/Codertocat/Hello-World",
        // repository.size: how the first fetch is made (small: whole).
        sizeKb: 0,
      },
      target: {
        kind: "issue",
        number: 1,
        title: "Spelling error in the README file",
        body: "It looks like you accidently spelled 'commit' with two 't's.",
        htmlUrl: "https://github.com/Codertocat/Hello-World/issues/1",
        state: "open",
        locked: false,
      },
      instruction: "@agent fix the typo",
      source: {
        kind: "issue_comment",
        id: 492700400,
        createdAt: "2019-05-15T15:20:21Z",
        htmlUrl: "https://github.com/Codertocat/Hello-World/issues/1#issuecomment-492700400",
      },
      requester: { login: "Codertocat", id: 21031067, type: "User" },
    });
  });

  it("marks an issue_comment on a PR as a pull request target without head details", () => {
    const request = parse("issue_comment", prComment("@agent rebase"));
    expect(request.target.kind).toBe("pull_request");
    expect(request.pullRequest).toBeUndefined();
    expect(request.instruction).toBe("@agent rebase");
  });

  it("accepts the event name with its action and rejects a mismatched one", () => {
    expect(parseTrigger("issue_comment.created", issueComment("@agent x"), "d")).not.toBeNull();
    expect(parseTrigger("issue_comment.deleted", issueComment("@agent x"), "d")).toBeNull();
  });

  it.each([
    ["issue_comment", "edited"],
    ["issue_comment", "deleted"],
    ["pull_request_review_comment", "edited"],
    ["pull_request_review_comment", "deleted"],
    ["pull_request_review", "dismissed"],
    ["issues", "unlabeled"],
    ["issues", "edited"],
  ])("returns null for %s.%s", (event, action) => {
    const payload = example(event, action);
    if (payload.comment) payload.comment.body = "@agent do it";
    expect(parseTrigger(event, payload, "d")).toBeNull();
  });

  it("returns null for unhandled events and payloads without an action", () => {
    expect(parseTrigger("push", { ref: "refs/heads/main" }, "d")).toBeNull();
    expect(parseTrigger("issue_comment", null, "d")).toBeNull();
    expect(parseTrigger("pull_request", example("pull_request", "opened"), "d")).toBeNull();
  });

  it("builds a review comment request with the diff hunk, path and PR head", () => {
    const payload = example("pull_request_review_comment", "created");
    payload.comment.body = "@agent use an emoji here";
    const request = parse("pull_request_review_comment", payload);
    expect(request.trigger).toBe("pull_request_review_comment");
    expect(request.target).toMatchObject({ kind: "pull_request", number: 2, state: "open" });
    expect(request.source).toEqual({
      kind: "review_comment",
      id: 284312630,
      createdAt: "2019-05-15T15:20:37Z",
      htmlUrl: "https://github.com/Codertocat/Hello-World/pull/2#discussion_r284312630",
      diffHunk: "@@ -1 +1 @@\n-# Hello-World",
      path: "README.md",
    });
    expect(request.pullRequest).toEqual({
      headRef: "changes",
      headSha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
      headRepoFullName: "Codertocat/Hello-World",
      baseRef: "master",
      isFork: false,
    });
  });

  it("flags a fork PR, and a PR whose fork was deleted", () => {
    const fork = example("pull_request_review_comment", "created");
    fork.pull_request.head.repo.full_name = "someone/Hello-World";
    expect(parse("pull_request_review_comment", fork).pullRequest).toMatchObject({
      headRepoFullName: "someone/Hello-World",
      isFork: true,
    });

    const deleted = example("pull_request_review_comment", "created");
    deleted.pull_request.head.repo = null;
    const pr = parse("pull_request_review_comment", deleted).pullRequest;
    expect(pr?.isFork).toBe(true);
    expect(pr?.headRepoFullName).toBe(deleted.pull_request.head.label);
  });

  it("builds a review request from the review body; no body means no request", () => {
    const payload = example("pull_request_review", "submitted");
    expect(payload.review.body).toBeNull();
    expect(parseTrigger("pull_request_review", payload, "d")).toBeNull();
    payload.review.body = "   ";
    expect(parseTrigger("pull_request_review", payload, "d")).toBeNull();

    payload.review.body = "Looks close. @agent handle the nits please";
    const request = parse("pull_request_review", payload);
    expect(request.trigger).toBe("pull_request_review");
    expect(request.instruction).toBe("Looks close. @agent handle the nits please");
    expect(request.source).toMatchObject({ kind: "review", id: 237895671 });
    expect(request.source.createdAt).toBe("2019-05-15T15:20:38Z");
    expect(request.pullRequest?.headRef).toBe("changes");
  });

  it("turns an added label into a request made of the issue title and body", () => {
    const payload = example("issues", "labeled");
    const request = parse("issues", payload);
    expect(request.trigger).toBe("issue_labeled");
    expect(request.source).toMatchObject({ kind: "label", label: "bug" });
    expect(request.instruction).toBe(
      "Spelling error in the README file\n\nIt looks like you accidently spelled 'commit' with two 't's.",
    );
    payload.issue.body = null;
    expect(parse("issues", payload).instruction).toBe("Spelling error in the README file");
  });

  it("turns a new issue into a request made of its description, keyed by the issue", () => {
    const payload = example("issues", "opened");
    payload.issue.body = "@agent the README spells 'commit' with two 't's; fix it";
    const request = parse("issues.opened", payload);
    expect(request.trigger).toBe("issue_opened");
    expect(request.target).toMatchObject({ kind: "issue", number: payload.issue.number });
    expect(request.source).toEqual({
      kind: "issue",
      id: payload.issue.id,
      createdAt: payload.issue.created_at,
      htmlUrl: payload.issue.html_url,
    });
    expect(request.instruction).toBe(payload.issue.body);
    expect(request.requester.login).toBe(payload.sender.login);
    // A redelivery under another delivery id is the same request.
    expect(triggerKey(parse("issues", payload, "delivery-2"))).toBe(triggerKey(request));
    payload.issue.body = null;
    expect(parse("issues", payload).instruction).toBe("");
  });

  it("leaves an opened pull request to pull_request.opened", () => {
    const payload = example("issues", "opened");
    payload.issue.body = "@agent fix it";
    payload.issue.pull_request = {
      url: "https://api.github.com/repos/Codertocat/Hello-World/pulls/1",
    };
    expect(parseTrigger("issues", payload, "d")).toBeNull();
  });

  it("names the missing field when a handled payload is malformed", () => {
    const payload = issueComment("@agent hi");
    delete payload.repository.clone_url;
    expect(() => parseTrigger("issue_comment", payload, "d")).toThrow(TriggerPayloadError);
    expect(() => parseTrigger("issue_comment", payload, "d")).toThrow(/clone_url/);
    expect(() => parseTrigger("issue_comment", issueComment("@agent"), "")).toThrow(/deliveryId/);
  });

  it("treats a [bot] login as a bot even when the type says otherwise", () => {
    const payload = issueComment("@agent hi");
    payload.sender = { ...payload.sender, login: "helper[bot]", type: "User" };
    expect(parse("issue_comment", payload).requester.type).toBe("Bot");
  });
});

describe("shouldStart", () => {
  it.each([
    ["@agent fix the typo", { start: true }],
    ["Could you look, @Agent?", { start: true }],
    ["(@agent) please", { start: true }],
    ["thanks @agents", { start: false, reason: "no_phrase" }],
    ["write to foo@agent.com", { start: false, reason: "no_phrase" }],
    ["run `@agent` locally", { start: false, reason: "no_phrase" }],
    ["> @agent fix the typo\nI agree with this", { start: false, reason: "no_phrase" }],
    ["```\n@agent\n```", { start: false, reason: "no_phrase" }],
    ["no mention at all", { start: false, reason: "no_phrase" }],
  ])("comment %j -> %j", (body, decision) => {
    expect(shouldStart(parse("issue_comment", issueComment(body)), rules)).toEqual(decision);
  });

  it("honours a configured phrase", () => {
    const request = parse("issue_comment", issueComment("/patch please"));
    expect(shouldStart(request, { ...rules, triggerPhrase: "/patch" })).toEqual({ start: true });
    expect(shouldStart(request, rules)).toEqual({ start: false, reason: "no_phrase" });
  });

  function fromSender(login: string, type: string) {
    const payload = issueComment("@agent do it");
    payload.sender = { ...payload.sender, login, type };
    return parse("issue_comment", payload);
  }

  it("never starts on the bot's own comment", () => {
    expect(shouldStart(fromSender("patchwright[bot]", "Bot"), rules)).toEqual({
      start: false,
      reason: "own_comment",
    });
    // Own comments stay own even when the App is also listed as an allowed bot.
    const allowSelf = { ...rules, allowedBots: ["patchwright[bot]"] };
    expect(shouldStart(fromSender("Patchwright[bot]", "Bot"), allowSelf)).toMatchObject({
      reason: "own_comment",
    });
    expect(
      shouldStart(fromSender("patchwright[bot]", "Bot"), { ...rules, botLogin: "patchwright" }),
    ).toMatchObject({ reason: "own_comment" });
  });

  it("refuses other bots unless allowed", () => {
    expect(shouldStart(fromSender("github-actions[bot]", "Bot"), rules)).toEqual({
      start: false,
      reason: "bot",
    });
    expect(shouldStart(fromSender("renovate[bot]", "Bot"), rules)).toEqual({ start: true });
    expect(shouldStart(fromSender("dependabot[bot]", "Bot"), rules)).toEqual({ start: true });
    expect(shouldStart(fromSender("ci-robot", "Bot"), rules)).toMatchObject({ reason: "bot" });
  });

  it("lets a human whose login resembles the App's through", () => {
    expect(shouldStart(fromSender("patchwright", "User"), rules)).toEqual({ start: true });
  });

  it("starts a label request only for the configured label", () => {
    const payload = example("issues", "labeled");
    expect(shouldStart(parse("issues", payload), rules)).toEqual({
      start: false,
      reason: "wrong_label",
    });
    payload.label.name = "Agent";
    expect(shouldStart(parse("issues", payload), rules)).toEqual({ start: true });
    // The phrase is irrelevant for labels: the issue text need not mention it.
    expect(parse("issues", payload).instruction).not.toMatch(/@agent/);
  });

  it("starts a new issue on the phrase in its description, not in its title, code or comments", () => {
    const payload = example("issues", "opened");
    payload.issue.title = "@agent add a dark mode";
    payload.issue.body = "The site is too bright.";
    expect(shouldStart(parse("issues", payload), rules)).toEqual({
      start: false,
      reason: "no_phrase",
    });
    // An issue template's hidden guidance and a quoted example are not a request.
    payload.issue.body =
      "<!-- Mention @agent to have the bot do it -->\n\n> @agent fix\n\n`@agent`";
    expect(shouldStart(parse("issues", payload), rules)).toEqual({
      start: false,
      reason: "no_phrase",
    });
    payload.issue.body = "The site is too bright. @Agent add a dark mode";
    expect(shouldStart(parse("issues", payload), rules)).toEqual({ start: true });
    payload.sender = { ...payload.sender, login: "someone[bot]", type: "Bot" };
    expect(shouldStart(parse("issues", payload), rules)).toEqual({ start: false, reason: "bot" });
  });

  it("checks review comments and reviews for the phrase too", () => {
    const comment = example("pull_request_review_comment", "created");
    expect(shouldStart(parse("pull_request_review_comment", comment), rules)).toMatchObject({
      reason: "no_phrase",
    });
    comment.comment.body = "@agent use 🎉";
    expect(shouldStart(parse("pull_request_review_comment", comment), rules).start).toBe(true);

    const review = example("pull_request_review", "submitted");
    review.review.body = "nits inline. @agent";
    expect(shouldStart(parse("pull_request_review", review), rules).start).toBe(true);
  });
});

describe("closedOrLocked", () => {
  it("reports closed, locked, or nothing", () => {
    const open = issueComment("@agent");
    expect(closedOrLocked(parse("issue_comment", open))).toBeNull();

    const closed = issueComment("@agent");
    closed.issue.state = "closed";
    expect(closedOrLocked(parse("issue_comment", closed))).toBe("closed");

    const locked = issueComment("@agent");
    locked.issue.locked = true;
    expect(closedOrLocked(parse("issue_comment", locked))).toBe("locked");

    locked.issue.state = "closed";
    expect(closedOrLocked(parse("issue_comment", locked))).toBe("locked");
  });

  it("reads the pull request's state for review events", () => {
    const payload = example("pull_request_review_comment", "created");
    payload.pull_request.state = "closed";
    expect(closedOrLocked(parse("pull_request_review_comment", payload))).toBe("closed");
  });

  it("uses the locked state of real locked-issue payloads", () => {
    const payload = example("issues", "locked");
    expect(payload.issue.locked).toBe(true);
    payload.action = "labeled";
    payload.label = { name: "agent" };
    expect(closedOrLocked(parse("issues", payload))).toBe("locked");
  });
});
