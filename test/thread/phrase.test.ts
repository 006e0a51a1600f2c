import { describe, expect, it } from "vitest";
import { containsPhrase, splitProse, stripPhrase } from "../../src/thread/phrase.js";

const fence = "```";

describe("containsPhrase", () => {
  it.each([
    ["@agent fix the tests", true],
    ["hey @Agent.", true],
    ["(@agent)", true],
    ["@AGENT please", true],
    ["line one\n@agent on the second line", true],
    ["please, @agent: rename it", true],
    ["@agent, rename it", true],
    ["end of sentence @agent", true],
    ["@agent's turn", true],
    ["**@agent** bold", true],
    ["- [ ] @agent in a task list", true],
    ["`code` then @agent after", true],
    ["``a ` b`` then @agent", true],
    ["an unmatched ` backtick and @agent", true],
    ["@agents", false],
    ["@agent-x do it", false],
    ["@agent_x do it", false],
    ["mail foo@agent.com", false],
    ["see @agent.com", false],
    ["@agent/team ping", false],
    ["email@agent", false],
    ["https://example.com/@agent", false],
    ["\\@agent escaped", false],
    ["agent without at", false],
    ["`@agent` inside inline code", false],
    ["`` @agent `` inside double backticks", false],
    [`${fence}\n@agent in a fence\n${fence}`, false],
    [`${fence}sh\n@agent in a fence with info\n${fence}\nprose`, false],
    ["~~~\n@agent in a tilde fence\n~~~", false],
    [`${fence}\nunclosed fence\n@agent`, false],
    [`${fence}\n${fence}\n@agent after an empty fence`, true],
    [`${fence}\n@agent\n${fence}\n@agent after a fence`, true],
    ["> @agent fix this\nThanks for looking!", false],
    ["   > @agent indented quote", false],
    ["> quoted\n\n@agent real request", true],
    ["<!-- @agent hidden -->", false],
    ["<!-- unclosed @agent", false],
    ["<!-- note --> @agent visible", true],
    ["", false],
  ])("%j -> %s", (text, expected) => {
    expect(containsPhrase(text, "@agent")).toBe(expected);
  });

  it("escapes regex characters in the phrase", () => {
    expect(containsPhrase("please /fix+ now", "/fix+")).toBe(true);
    expect(containsPhrase("please /fixxx now", "/fix+")).toBe(false);
    expect(containsPhrase("run it (.*) now", "@ag.nt")).toBe(false);
    expect(containsPhrase("@agxnt", "@ag.nt")).toBe(false);
    expect(containsPhrase("@ag.nt go", "@ag.nt")).toBe(true);
  });

  it("matches a custom phrase and multi-word phrases across spaces", () => {
    expect(containsPhrase("@Patchwright do it", "@patchwright")).toBe(true);
    expect(containsPhrase("@patchwrights", "@patchwright")).toBe(false);
    expect(containsPhrase("hey  Bot\nplease", "hey bot")).toBe(true);
  });

  it("never matches an empty phrase", () => {
    expect(containsPhrase("anything", "  ")).toBe(false);
  });
});

describe("splitProse", () => {
  it("gives the text back when joined and marks only prose", () => {
    const text = `a @agent \`x\`\n> q\n${fence}\ncode\n${fence}\n<!-- c --> end`;
    const segments = splitProse(text);
    expect(segments.map((s) => s.text).join("")).toBe(text);
    expect(segments.filter((s) => !s.prose).map((s) => s.text)).toEqual([
      `\`x\``,
      `> q\n${fence}\ncode\n${fence}\n<!-- c -->`,
    ]);
  });
});

describe("stripPhrase", () => {
  it.each([
    ["@agent fix the flaky test", "fix the flaky test"],
    ["Hey @agent, please rename foo", "Hey please rename foo"],
    ["@Agent: add a changelog entry", "add a changelog entry"],
    ["please fix this @agent", "please fix this"],
    ["@agent\n\nupdate the docs", "update the docs"],
    ["@agent", ""],
    ["@agent run `@agent --help` and fix", "run `@agent --help` and fix"],
    ["> @agent old request\n@agent new request", "> @agent old request\nnew request"],
    ["mail foo@agent.com @agent", "mail foo@agent.com"],
  ])("%j -> %j", (text, expected) => {
    expect(stripPhrase(text, "@agent")).toBe(expected);
  });
});
