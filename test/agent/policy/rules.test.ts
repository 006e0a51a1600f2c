import { describe, expect, it } from "vitest";
import { PolicyRuleError, parseRule } from "../../../src/agent/policy/policy.js";

describe("parseRule", () => {
  it("splits tool and pattern", () => {
    expect(parseRule("run_shell:  npm test*  ")).toMatchObject({
      tool: "run_shell",
      pattern: "npm test*",
    });
    expect(parseRule("write_file")).toMatchObject({ tool: "write_file", pattern: null });
    expect(parseRule("run_shell: echo a:b").pattern).toBe("echo a:b");
  });

  it.each([
    ["", 'unknown tool ""'],
    ["shell: ls", 'rule "shell: ls": unknown tool "shell"'],
    ["Edit_File: src/**", 'unknown tool "Edit_File"'],
    ["run_shell:", 'rule "run_shell:": the pattern after ":" is empty; write "run_shell" alone'],
    ["edit_file: /abs/**", "relative to the workspace root"],
    ["edit_file: ~/x", "relative to the workspace root"],
    ["read_file: src/../../x", "cannot leave the workspace"],
  ])("rejects %j", (rule, message) => {
    expect(() => parseRule(rule)).toThrow(PolicyRuleError);
    expect(() => parseRule(rule)).toThrow(message);
  });

  it("matches shell text with * as the only wildcard", () => {
    const rule = parseRule("run_shell: npm test*");
    expect(rule.matches("npm test")).toBe(true);
    expect(rule.matches("npm test --watch")).toBe(true);
    expect(rule.matches("npm  test   -- x")).toBe(true);
    expect(rule.matches("npm run test")).toBe(false);
    expect(rule.matches("xnpm test")).toBe(false);
    const literal = parseRule("run_shell: make (all) [x] a.b?");
    expect(literal.matches("make (all) [x] a.b?")).toBe(true);
    expect(literal.matches("make (all) [x] aXb?")).toBe(false);
    const middle = parseRule("run_shell: git * --dry-run");
    expect(middle.matches("git clean -fd --dry-run")).toBe(true);
    expect(middle.matches("git clean -fd")).toBe(false);
  });

  it("matches paths with picomatch, dotfiles included", () => {
    const rule = parseRule("edit_file: ./src/**");
    expect(rule.matches("src/a.ts")).toBe(true);
    expect(rule.matches("src/.hidden/b.ts")).toBe(true);
    expect(rule.matches("lib/a.ts")).toBe(false);
    const lock = parseRule("write_file: **/*.lock");
    expect(lock.matches("yarn.lock")).toBe(true);
    expect(lock.matches("a/b/Cargo.lock")).toBe(true);
  });
});
