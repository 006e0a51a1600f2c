import { spawnSync } from "node:child_process";
import { cp } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchCollector } from "../../../../src/agent/tools/grep/grep-matches.js";
import { grepSearchTool } from "../../../../src/agent/tools/grep/grep-search.js";
import { createWorkspace, type TestWorkspace } from "../tool-context.js";

/**
 * grep_search against a reference engine on real code: PCRE2 (git grep -P,
 * in a UTF-8 locale), which agrees with JavaScript on everything these
 * patterns use (ASCII \d \w \b, Unicode `.`). Every pattern is one a model
 * writes in PCRE or JavaScript style; each must find exactly the lines
 * PCRE finds, translated or not.
 */

const REAL = fileURLToPath(new URL("../../../fixtures/real", import.meta.url));

/** `reference`: the same pattern in PCRE's own words, where ours is a translation PCRE lacks. */
const PATTERNS: Array<{ pattern: string; path?: string; ci?: boolean; reference?: string }> = [
  { pattern: "(?i)express", path: "express/lib" },
  { pattern: "express", path: "express/lib", ci: true },
  { pattern: "(?:get|post)\\(", path: "express" },
  { pattern: "(?<=res\\.)send\\b" },
  { pattern: "(?<!\\.)\\bsend\\(" },
  { pattern: "\\bfunction\\s+\\w+\\s*\\(", path: "express/lib/utils.js" },
  { pattern: "^\\s*#", path: "requests/src" },
  { pattern: "(?i)content-type" },
  { pattern: "[[:upper:]]{3,}_[[:upper:]]+" },
  { pattern: "def \\w+\\(self(?!\\))", path: "requests/src" },
  { pattern: "\\d+\\.\\d+\\.\\d+" },
  { pattern: "caf.\\." },
  { pattern: "^\\t@?\\w+", path: "requests" },
  { pattern: "(['\"])use strict\\1" },
  { pattern: "\\$\\{\\{ ?matrix\\.", path: "express/.github" },
  { pattern: "^[^ \\t#\\n][^:=]*:", path: "requests/Makefile" },
  { pattern: "require\\('\\./\\w+'\\)" },
  { pattern: "(?<name>\\w)\\k<name>{2}" },
  { pattern: "\\breturn\\s+(?:this|self)\\b" },
  { pattern: "[^\\x00-\\x7f]" },
  { pattern: "\\S\\h{2,}\\S", path: "express/lib" },
  // Lines are the subject: \A is a line's start (git grep -P would take the file's).
  { pattern: "\\Aimport\\s", reference: "^import\\s", path: "requests/src" },
  { pattern: "\\<raise\\>", reference: "\\braise\\b", path: "requests/src" },
  { pattern: "\\b\\w+Error\\b(?=\\()" },
  { pattern: "\\s{4}if \\w+ is None:", path: "requests/src" },
];

const hasPcre =
  spawnSync("git", ["grep", "--no-index", "-P", "-q", "x", "--", "/dev/null"], {
    encoding: "utf8",
  }).stderr.includes("not compiled") === false;

function reference(root: string, pattern: string, path: string, ci: boolean): string {
  const result = spawnSync(
    "git",
    ["grep", "-P", "-n", "-I", ...(ci ? ["-i"] : []), "-e", pattern, "--", path],
    { cwd: root, encoding: "utf8", env: { PATH: process.env.PATH ?? "", LC_ALL: "C.UTF-8" } },
  );
  if (result.status !== 0 && result.status !== 1) throw new Error(result.stderr);
  const matches = new MatchCollector();
  for (const line of result.stdout.split("\n").filter(Boolean)) {
    const [, file = "", lineNo = "", text = ""] = /^(.*?):(\d+):(.*)$/s.exec(line) ?? [];
    matches.add(file, lineNo, text);
  }
  return matches.format("");
}

describe.skipIf(!hasPcre)("grep_search matches what PCRE2 matches on real files", () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createWorkspace({ git: true });
    await cp(REAL, ws.root, { recursive: true });
    ws.git("add", "-A");
    ws.git("commit", "-q", "-m", "real files");
  });
  afterAll(() => ws?.cleanup());

  it.each(PATTERNS.map((p) => [`/${p.pattern}/${p.ci ? " (case_insensitive)" : ""}`, p] as const))(
    "%s",
    async (_label, { pattern, path, ci, reference: same }) => {
      const expected = reference(ws.root, same ?? pattern, path ?? ".", ci ?? false);
      expect(expected, "the reference finds something").not.toBe("");
      const ours = await grepSearchTool.run(
        { pattern, ...(path ? { path } : {}), ...(ci ? { case_insensitive: true } : {}) },
        ws.ctx,
      );
      expect(ours).toBe(expected);
    },
  );
});
