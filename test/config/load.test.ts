import { readFileSync } from "node:fs";
import { Octokit } from "@octokit/rest";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ConfigResult, loadRepoConfig } from "../../src/config/load.js";
import { parseConfig } from "../../src/config/parse.js";
import { defaultConfig } from "../../src/config/schema.js";

const fullYaml = readFileSync(new URL("../fixtures/config/full.yml", import.meta.url), "utf8");

function problems(result: ConfigResult) {
  if (result.ok) throw new Error("expected the config to be rejected");
  return result.error.problems;
}

describe("parseConfig", () => {
  it.each([
    ["an empty file", ""],
    ["a file of comments", "# nothing set yet\n\n# really\n"],
    ["known keys without values", "policy:\nsetup:\nverify:\nbot:\n  email:\n"],
  ])("gives defaults for %s", async (_name, text) => {
    expect(await parseConfig(text)).toEqual({ ok: true, config: defaultConfig(), source: "file" });
  });

  it("reads every setting of a full file", async () => {
    const result = await parseConfig(fullYaml);
    expect(result).toEqual({
      ok: true,
      source: "file",
      config: {
        triggerPhrase: "@patchy",
        label: "patchwright",
        model: "claude-opus-5",
        maxTurns: 80,
        maxCostUsd: 12.5,
        maxCostPerRequestUsd: 20,
        maxMinutes: 45,
        policy: {
          preset: "trusted",
          allow: ["run_shell: make *"],
          deny: ["write_file: secrets/**"],
        },
        setup: ["npm ci", "npm run build"],
        verify: "npm test",
        verifyTimeoutSeconds: 1200,
        network: {
          kind: "hosts",
          hosts: [
            { host: "registry.npmjs.org", wildcard: false, port: undefined },
            { host: "github.com", wildcard: true, port: undefined },
          ],
        },
        setupNetwork: { kind: "off" },
        branchPrefix: "bots/patchwright/",
        squash: true,
        draftOnFailure: false,
        allowedBots: ["renovate[bot]"],
        answerUnauthorized: false,
        bot: { name: "Patchwright", email: "patchwright@example.com" },
        deps: { schedule: "weekly", ecosystems: ["npm"] },
        ciFix: { enabled: true, maxAttempts: 3, rerunWaitSeconds: 1200 },
        updateStrategy: "rebase",
        signedCommits: true,
        planFirst: { mode: "large", maxFiles: 8 },
      },
    });
  });

  it.each([
    [
      "trigger_phrase: ''",
      "trigger_phrase",
      "expected a trigger phrase such as @agent, not an empty string",
    ],
    ["trigger_phrase: 5", "trigger_phrase", "expected a trigger phrase such as @agent, got 5"],
    ["label: [a, b]", "label", "expected a label name, got a list"],
    [`label: ${"x".repeat(51)}`, "label", "at most 50 characters"],
    ["model: {name: x}", "model", "expected a model id such as claude-sonnet-5-5, got a mapping"],
    ["max_turns: lots", "max_turns", 'expected a whole number above 0, got "lots"'],
    ["verify_timeout: soon", "verify_timeout", 'expected a duration such as "90s"'],
    ["verify_timeout: 0", "verify_timeout", 'expected a duration such as "90s"'],
    ["network: everywhere", "network", 'expected "on", "off", "public", or a list of host names'],
    ["network: [https://x.org/]", "network[0]", 'expected a host such as "registry.npmjs.org"'],
    ["max_turns: 0", "max_turns", "expected a whole number above 0, got 0"],
    ["max_turns: 2.5", "max_turns", "expected a whole number above 0, got 2.5"],
    ["max_cost_usd: -1", "max_cost_usd", "expected a number of US dollars above 0, got -1"],
    ["max_cost_usd: .inf", "max_cost_usd", "expected a number of US dollars above 0, got Infinity"],
    ["max_minutes: '30'", "max_minutes", 'expected a number of minutes above 0, got "30"'],
    ["policy: strict", "policy", 'expected a mapping (key: value lines), got "strict"'],
    [
      "policy:\n  preset: yolo",
      "policy.preset",
      'expected one of "read-only", "default", "trusted", got "yolo"',
    ],
    ["policy:\n  allow: run_shell", "policy.allow", 'expected a list, got "run_shell"'],
    [
      "policy:\n  allow:\n    - 'run_shell: npm test'\n    - 'shell: rm'",
      "policy.allow[1]",
      'rule "shell: rm": unknown tool "shell"',
    ],
    [
      "policy:\n  deny:\n    - 'write_file: /etc/*'",
      "policy.deny[0]",
      "relative to the workspace root",
    ],
    ["policy:\n  deny:\n    - 'read_file:'", "policy.deny[0]", 'the pattern after ":" is empty'],
    ["policy:\n  allow:\n    - 3", "policy.allow[0]", "expected text, got 3"],
    ["setup: npm ci", "setup", 'expected a list of shell commands, got "npm ci"'],
    ["setup:\n  - npm ci\n  - ''", "setup[1]", "expected a shell command, not an empty string"],
    ["verify: true", "verify", "expected a shell command (a string), got true"],
    ["plan_first: sometimes", "plan_first", 'expected "never", "large" or "always"'],
    ["plan_first_files: 0", "plan_first_files", "expected a whole number of files, 1 or more"],
    ["branch_prefix: agent", "branch_prefix", 'ending with "/"'],
    ["branch_prefix: 'my bot/'", "branch_prefix", "a prefix git accepts in a branch name"],
    ["squash: yes please", "squash", 'expected true or false, got "yes please"'],
    ["draft_on_failure: 1", "draft_on_failure", "expected true or false, got 1"],
    ["allowed_bots: renovate", "allowed_bots", 'expected a list of bot logins, got "renovate"'],
    ["answer_unauthorized: 'no'", "answer_unauthorized", 'expected true or false, got "no"'],
    ["bot: patchwright", "bot", 'expected a mapping (key: value lines), got "patchwright"'],
    [
      "bot:\n  email: nope",
      "bot.email",
      'expected an email address such as bot@example.com, got "nope"',
    ],
    ["bot:\n  name: ''", "bot.name", "expected a commit author name, not an empty string"],
    ["deps: weekly", "deps", 'expected a mapping of dependency settings, got "weekly"'],
  ])("names the field of %j", async (text, field, fragment) => {
    const [problem, ...rest] = problems(await parseConfig(text));
    expect(rest).toEqual([]);
    expect(problem?.field).toBe(field);
    expect(problem?.message.startsWith(`${field}: `)).toBe(true);
    expect(problem?.message).toContain(fragment);
  });

  it.each([
    ["max_turn: 3", "max_turn", 'did you mean "max_turns"?'],
    ["maxTurns: 3", "maxTurns", 'did you mean "max_turns"?'],
    ["branch-prefix: x/", "branch-prefix", 'did you mean "branch_prefix"?'],
    ["policy:\n  alow: []", "policy.alow", 'did you mean "allow"?'],
    ["bot:\n  mail: a@b", "bot.mail", 'did you mean "email"?'],
    ["colour: blue", "colour", "known settings here: trigger_phrase, label"],
    ["max_turn:", "max_turn", 'did you mean "max_turns"?'],
  ])("reports the unknown key in %j", async (text, field, hint) => {
    const [problem] = problems(await parseConfig(text));
    expect(problem?.field).toBe(field);
    expect(problem?.message).toContain(`${field}: unknown setting; ${hint}`);
  });

  it("points at the key of an unknown setting and the item of a bad list entry", async () => {
    const found = problems(
      await parseConfig("label: x\n  # note\nmax_turn: 3\npolicy:\n  allow:\n    - ok_tool\n"),
    );
    expect(found.map((p) => [p.field, p.line, p.column])).toEqual([
      ["max_turn", 3, 1],
      ["policy.allow[0]", 6, 7],
    ]);
  });

  it("reports every problem at once, with its line", async () => {
    const found = problems(
      await parseConfig("label: ok\nmax_turns: lots\npolicy:\n  preset: yolo\n"),
    );
    expect(found.map((p) => [p.field, p.line])).toEqual([
      ["max_turns", 2],
      ["policy.preset", 4],
    ]);
  });

  it.each([
    ["a: b: c", 1, 4],
    ["max_turns: 1\nmax_turns: 2\n", 2, 1],
    ["policy:\n  allow: [unclosed\n", 3, 1],
    ['label: "open\n', 2, 1],
    ["\tmax_turns: 3", 1, 1],
  ])("reports the YAML syntax error in %j with its line and column", async (text, line, column) => {
    const [problem] = problems(await parseConfig(text));
    expect(problem?.field).toBeNull();
    expect(problem?.message).toMatch(/^YAML syntax error: /);
    expect(problem?.line).toBe(line);
    expect(problem?.column).toBe(column);
    expect(problem?.message).toContain(`at line ${line}, column ${column}`);
  });

  it("rejects a file that is not a mapping", async () => {
    const [problem] = problems(await parseConfig("- npm test\n"));
    expect(problem).toMatchObject({
      field: null,
      message: "the file: expected a mapping (key: value lines), got a list",
    });
  });

  it("refuses an alias bomb instead of expanding it", async () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
    ].join("\n");
    const [problem] = problems(await parseConfig(bomb));
    expect(problem?.message).toMatch(/could not be read as YAML|alias/i);
  });

  it("explains the problems in markdown for a comment", async () => {
    const result = await parseConfig("max_turns: lots\npolicy:\n  alow: []\n", { ref: "main" });
    if (result.ok) throw new Error("expected an error");
    expect(result.error.field).toBe("max_turns");
    expect(result.error.message).toContain(
      'max_turns: expected a whole number above 0, got "lots"',
    );
    const markdown = result.error.toMarkdown();
    expect(markdown).toContain("`.github/patchwright.yml` on `main` has 2 problems");
    expect(markdown).toContain(
      '- `max_turns`: expected a whole number above 0, got `"lots"` (line 1)',
    );
    expect(markdown).toContain('- `policy.alow`: unknown setting; did you mean "allow"? (line 3)');
    expect(markdown).toContain("Fix the file on the default branch");
  });
});

describe("loadRepoConfig", () => {
  const api = "https://api.github.com";
  const octokit = new Octokit({ auth: "test", baseUrl: api });
  const contentPath = /^\/repos\/acme\/widgets\/contents\/\.github(%2F|\/)patchwright\.yml/;

  beforeAll(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending).toEqual([]);
  });

  function fileBody(text: string) {
    return {
      type: "file",
      encoding: "base64",
      size: text.length,
      name: "patchwright.yml",
      path: ".github/patchwright.yml",
      content: Buffer.from(text).toString("base64"),
    };
  }

  it("reads the file from the ref it is given", async () => {
    nock(api)
      .get(contentPath)
      .query({ ref: "main" })
      .reply(200, fileBody("max_turns: 9\nverify: npm test\n"));
    const result = await loadRepoConfig(octokit, { owner: "acme", repo: "widgets", ref: "main" });
    expect(result).toMatchObject({
      ok: true,
      source: "file",
      config: { maxTurns: 9, verify: "npm test" },
    });
  });

  it("reads another path when given one", async () => {
    nock(api)
      .get(/^\/repos\/acme\/widgets\/contents\/config(%2F|\/)bot\.yml/)
      .query({ ref: "trunk" })
      .reply(200, fileBody("label: bot\n"));
    const result = await loadRepoConfig(octokit, {
      owner: "acme",
      repo: "widgets",
      ref: "trunk",
      path: "config/bot.yml",
    });
    expect(result).toMatchObject({ ok: true, config: { label: "bot" } });
  });

  it("uses the defaults when the file does not exist", async () => {
    nock(api).get(contentPath).query({ ref: "main" }).reply(404, { message: "Not Found" });
    const result = await loadRepoConfig(octokit, { owner: "acme", repo: "widgets", ref: "main" });
    expect(result).toEqual({ ok: true, config: defaultConfig(), source: "default" });
  });

  it("returns an error naming the branch for a bad file", async () => {
    nock(api).get(contentPath).query({ ref: "main" }).reply(200, fileBody("max_turns: lots\n"));
    const result = await loadRepoConfig(octokit, { owner: "acme", repo: "widgets", ref: "main" });
    if (result.ok) throw new Error("expected an error");
    expect(result.error.field).toBe("max_turns");
    expect(result.error.toMarkdown()).toContain(
      "`.github/patchwright.yml` on `main` has a problem",
    );
  });

  it("returns an error when the path is a folder", async () => {
    nock(api)
      .get(contentPath)
      .query({ ref: "main" })
      .reply(200, [fileBody("x: 1")]);
    const result = await loadRepoConfig(octokit, { owner: "acme", repo: "widgets", ref: "main" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("is not a file");
  });

  it("returns an error when GitHub does not inline a large file", async () => {
    nock(api)
      .get(contentPath)
      .query({ ref: "main" })
      .reply(200, { ...fileBody(""), encoding: "none", size: 2_000_000 });
    const result = await loadRepoConfig(octokit, { owner: "acme", repo: "widgets", ref: "main" });
    expect(result.ok).toBe(false);
  });

  it("throws API failures that say nothing about the file", async () => {
    nock(api).get(contentPath).query({ ref: "main" }).reply(500, { message: "boom" });
    await expect(
      loadRepoConfig(octokit, { owner: "acme", repo: "widgets", ref: "main" }),
    ).rejects.toMatchObject({ status: 500 });
  });
});
