import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  branchName,
  isValidBranchName,
  listRemoteBranches,
  slugify,
} from "../../src/git/branch.js";
import { createBareRepo, gitTestEnv, makeTempDir } from "../helpers/git-repos.js";

describe("slugify", () => {
  it("keeps lowercase ASCII words joined by single dashes", () => {
    expect(slugify("Fix: Parser crashes on EMPTY input!!")).toBe(
      "fix-parser-crashes-on-empty-input",
    );
    expect(slugify("Crème brûlée — naïve café")).toBe("creme-brulee-naive-cafe");
    expect(slugify("  --weird__name..lock/../x  ")).toBe("weird-name-lock-x");
    expect(slugify("日本語")).toBe("");
  });

  it("cuts at a word boundary within the limit", () => {
    expect(slugify("support multiple configuration files", 20)).toBe("support-multiple");
    expect(slugify("abcdefghijklmnopqrstuvwxyz", 10)).toBe("abcdefghij");
    expect(slugify("a b c d e f", 4)).toBe("a-b");
  });
});

describe("isValidBranchName", () => {
  const cases = [
    "agent/issue-1-x",
    "feature/login",
    "-rf",
    "a..b",
    "a//b",
    "/a",
    "a/",
    "a.",
    "a.lock",
    "a/.hidden",
    "a b",
    "a~1",
    "a^",
    "a:b",
    "a?",
    "a*",
    "a[b",
    "a\\b",
    "a@{b",
    "@",
    "HEAD",
    "a\u0001b",
    "ok-name_1.2",
  ];

  it("agrees with git check-ref-format --branch", () => {
    for (const name of cases) {
      const git = spawnSync("git", ["check-ref-format", "--branch", name]).status === 0;
      // check-ref-format accepts a leading dash, and expands "@" to the current
      // branch; neither is a name we would create.
      const expected = git && !name.startsWith("-") && name !== "HEAD" && name !== "@";
      expect(isValidBranchName(name), name).toBe(expected);
    }
  });
});

describe("branchName", () => {
  it("builds agent/issue-<n>-<slug> within the length bound", async () => {
    const name = await branchName({
      issueNumber: 123,
      title: "Parser crashes when the configuration file is empty or missing entirely",
    });
    expect(name).toBe("agent/issue-123-parser-crashes-when-the-configuration-file");
    expect(name.length).toBeLessThanOrEqual(60);
    expect(isValidBranchName(name)).toBe(true);
  });

  it("works without an issue number or a usable title", async () => {
    expect(await branchName({ title: "Update deps" })).toBe("agent/update-deps");
    expect(await branchName({ issueNumber: 9, title: "🙂" })).toBe("agent/issue-9");
    expect(await branchName({ title: "!!!", prefix: "bot/" })).toBe("bot/task");
  });

  it("adds -2, -3 ... until the name is free, staying within the bound", async () => {
    const taken = new Set(["agent/issue-5-fix-it", "agent/issue-5-fix-it-2"]);
    const name = await branchName({
      issueNumber: 5,
      title: "Fix it",
      existing: async (n) => taken.has(n),
    });
    expect(name).toBe("agent/issue-5-fix-it-3");

    const long = "word ".repeat(30);
    const first = await branchName({ issueNumber: 5, title: long, maxLength: 40 });
    const second = await branchName({
      issueNumber: 5,
      title: long,
      maxLength: 40,
      existing: async (n) => n === first,
    });
    expect(second).toMatch(/-2$/);
    expect(second.length).toBeLessThanOrEqual(40);
    expect(second).not.toBe(first);
  });

  it("rejects a prefix git would not accept", async () => {
    await expect(branchName({ title: "x", prefix: "bad..prefix/" })).rejects.toThrow(/prefix/);
  });

  it("checks uniqueness against the remote's branches", async () => {
    const tmp = makeTempDir();
    try {
      const env = gitTestEnv(join(tmp.path, "home"));
      const repo = createBareRepo({ root: tmp.path, env });
      repo.push({ branch: "agent/issue-3-add-retries", files: { "a.txt": "a\n" } });
      const heads = await listRemoteBranches({ url: repo.url, env });
      expect([...heads].sort()).toEqual(["agent/issue-3-add-retries", "main"]);
      const name = await branchName({
        issueNumber: 3,
        title: "Add retries",
        existing: async (n) => heads.has(n),
      });
      expect(name).toBe("agent/issue-3-add-retries-2");
    } finally {
      tmp.remove();
    }
  });
});
