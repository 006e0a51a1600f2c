import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { commitScope, commitType } from "../../../src/git/commit/commit-kind.js";
import {
  buildCommitMessage,
  SUBJECT_MAX,
  stripSpace,
} from "../../../src/git/commit/commit-message.js";
import { wrapText } from "../../../src/git/commit/text-wrap.js";

const coAuthor = { name: "Octo Cat", login: "octocat", id: 583231 };

describe("buildCommitMessage", () => {
  it("makes a conventional subject from the model's words and the files", () => {
    const m = buildCommitMessage({
      text: "I'll fix the parser so it handles empty input.",
      files: ["src/parser/parse.ts"],
    });
    expect(m.subject).toBe("fix(parser): fix the parser so it handles empty input");
    expect(m.body).toBe("");
    expect(m.message).toBe(`${m.subject}\n`);
  });

  it("skips filler and exploration, and turns past tense into the imperative", () => {
    const m = buildCommitMessage({
      text: "Let me look at the config loader first. Now I added a retry option to the client.",
      files: ["src/http/client.ts", "src/http/retry.ts"],
    });
    expect(m.subject).toBe("feat(http): add a retry option to the client");
    expect(
      buildCommitMessage({
        text: "Updated the `loadConfig` helper.",
        files: ["src/config/load.ts"],
      }).subject,
    ).toBe("chore(config): update the loadConfig helper");
    expect(
      buildCommitMessage({
        text: "Removing the unused snake_case_name export",
        files: ["src/a.ts"],
      }).subject,
    ).toBe("refactor(a): remove the unused snake_case_name export");
  });

  it("falls back to the files when the text says nothing about the change", () => {
    expect(buildCommitMessage({ text: "", files: ["src/cli.ts"] }).subject).toBe(
      "chore(cli): update src/cli.ts",
    );
    expect(
      buildCommitMessage({ text: "Let me check the tests.", files: ["src/a/x.ts", "src/a/y.ts"] })
        .subject,
    ).toBe("chore(a): update 2 files in a");
  });

  it("types docs, tests, ci and dependency changes by their files", () => {
    expect(buildCommitMessage({ text: "Fix a typo.", files: ["README.md"] }).subject).toBe(
      "docs(readme): fix a typo",
    );
    expect(
      buildCommitMessage({
        text: "Add a case for empty input.",
        files: ["test/parser/parse.test.ts"],
      }).subject,
    ).toBe("test(parser): add a case for empty input");
    expect(
      buildCommitMessage({ text: "Bump zod to 4.1.", files: ["package.json", "package-lock.json"] })
        .subject,
    ).toBe("chore(deps): bump zod to 4.1");
    expect(
      buildCommitMessage({ text: "Cache npm.", files: [".github/workflows/ci.yml"] }).subject,
    ).toBe("ci: cache npm");
  });

  it("keeps the subject within 72 characters, cut at a word", () => {
    const m = buildCommitMessage({
      text: "Fixed the configuration loader so that it no longer crashes when the YAML file contains only comments and whitespace, which happened in CI.",
      files: ["src/config/load.ts"],
    });
    expect(m.subject.length).toBeLessThanOrEqual(SUBJECT_MAX);
    expect(m.subject).toMatch(/^fix\(config\): fix the configuration loader so that it no longer/);
    expect(m.subject).not.toMatch(/\s$/);
    // The full words survive in the body, wrapped.
    expect(m.body).toContain("which happened in CI.");
    for (const line of m.body.split("\n")) expect(line.length).toBeLessThanOrEqual(72);
  });

  it.each([
    [
      "Now normalizeType uses the bitwise-not idiom; use `~str.indexOf(x)` like the rest of utils.js so the style is consistent.",
      ["lib/utils.js"],
      "chore(utils): normalizeType uses the bitwise-not idiom",
    ],
    [
      "Add a `--dry-run` flag to the deploy command that prints the plan without applying it, and document it in the README.",
      ["src/cli/deploy.ts"],
      "feat(cli): add a --dry-run flag to the deploy command",
    ],
    [
      "Update res.redirect() to encode the URL with encodeurl before setting the Location header, matching what res.location() already does.",
      ["lib/response.js"],
      "chore(response): update res.redirect() to encode the URL with encodeurl",
    ],
    [
      "Replace the deprecated `req.param()` calls in the router tests with `req.params`/`req.query` lookups (the helper was removed in Express 5).",
      ["test/router/params.test.js"],
      "test(router): replace the deprecated req.param() calls",
    ],
    [
      "I've changed `app.listen` to pass the callback through to `server.listen` so errors like EADDRINUSE reach the caller instead of being thrown asynchronously.",
      ["lib/application.js"],
      "chore(application): change app.listen to pass the callback through",
    ],
    [
      "Refactored the session middleware: cookie parsing now lives in its own module and the store interface uses promises throughout.",
      ["lib/session/index.js", "lib/session/cookie.js"],
      "refactor(session): refactor the session middleware",
    ],
  ])("shortens a long subject to a whole phrase: %s", (text, files, subject) => {
    const m = buildCommitMessage({ text, files });
    expect(m.subject).toBe(subject);
    expect(m.subject.length).toBeLessThanOrEqual(SUBJECT_MAX);
    // What the subject dropped is in the body.
    expect(m.body).toContain(text.slice(-20));
  });

  it("cuts at a word when no boundary fits, never ending on a word left hanging", () => {
    const m = buildCommitMessage({
      text: "Swap fooBarBazQuxQuuxCorgeGraultGarplyWaldo helper use the newer API everywhere now.",
      files: ["src/a.ts"],
    });
    expect(m.subject).toBe("chore(a): swap fooBarBazQuxQuuxCorgeGraultGarplyWaldo helper");
  });

  it("adds the file list, co-author and request trailers last", () => {
    const m = buildCommitMessage({
      text: "Add input validation.\n\nThe handler now rejects empty bodies.",
      files: ["src/api/handler.ts", "src/api/schema.ts"],
      coAuthor,
      requestUrl: "https://github.com/o/r/issues/12#issuecomment-1",
    });
    expect(m.message).toBe(
      [
        "feat(api): add input validation",
        "",
        "Add input validation.",
        "",
        "The handler now rejects empty bodies.",
        "",
        "Files:",
        "- src/api/handler.ts",
        "- src/api/schema.ts",
        "",
        "Co-authored-by: Octo Cat <583231+octocat@users.noreply.github.com>",
        "Refs: https://github.com/o/r/issues/12#issuecomment-1",
        "",
      ].join("\n"),
    );
  });

  it("drops trailer-like lines the model wrote, so attribution comes only from us", () => {
    const m = buildCommitMessage({
      text: "Fix the bug.\nCo-authored-by: Mallory <m@evil.example>\nSigned-off-by: Mallory",
      files: ["src/a.ts"],
      coAuthor: { ...coAuthor, email: "octo@ghe.example.com" },
    });
    expect(m.message).not.toContain("Mallory");
    expect(m.trailers).toEqual(["Co-authored-by: Octo Cat <octo@ghe.example.com>"]);
  });
});

describe("commitType / commitScope", () => {
  it("derives the type from the leading verb, then from bug words", () => {
    expect(commitType("rename the option", "", ["src/a.ts"])).toBe("refactor");
    expect(commitType("optimize the scan", "", ["src/a.ts"])).toBe("perf");
    expect(commitType("change the default", "it crashed on start", ["src/a.ts"])).toBe("fix");
    expect(commitType("change the default", "", ["src/a.ts"])).toBe("chore");
  });

  it("uses the most specific shared, non-generic folder", () => {
    expect(commitScope(["src/git/push.ts", "src/git/commits.ts"])).toBe("git");
    expect(commitScope(["src/git/push.ts", "test/git/push.test.ts"])).toBeUndefined();
    expect(commitScope(["packages/core/src/index.ts"])).toBe("core");
    expect(commitScope(["src/index.ts"])).toBeUndefined();
    expect(commitScope([])).toBeUndefined();
  });
});

describe("wrapText", () => {
  it("wraps paragraphs and list items, leaves code alone", () => {
    const long = "word ".repeat(30).trim();
    const out = wrapText(`${long}\n\n- ${long}\n\n\`\`\`\n${long}\n\`\`\``, 40);
    const lines = out.split("\n");
    expect(lines.filter((l) => l === long)).toHaveLength(1);
    for (const line of lines.filter((l) => l !== long)) expect(line.length).toBeLessThanOrEqual(40);
    expect(lines).toContain("- word word word word word word word");
    expect(lines).toContain("  word word word word word word word");
  });
});

describe("stripSpace", () => {
  /** A seeded stream of characters git's cleanup treats differently. */
  function* texts(count: number): Generator<string> {
    const pieces = [
      "a",
      "é",
      "🙂",
      " ",
      "\t",
      "\r",
      "\n",
      "\n\n",
      "\v",
      "\f",
      "#",
      "\u00a0",
      "x y",
    ];
    let seed = 7;
    for (let n = 0; n < count; n++) {
      let text = "";
      const length = n % 17;
      for (let i = 0; i < length; i++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        text += pieces[seed % pieces.length];
      }
      yield text;
    }
  }

  it("makes of every message what git stripspace makes of it", () => {
    const cases = [
      "",
      "\n\n\n",
      "subject",
      "subject  \t\n\n\n\nbody\r\n\n",
      "\n  \nsubject\n \n \nbody  \n\t\n",
      "# Heading\n\n- item \n",
      "no final newline   ",
      "\r\nCRLF\r\nlines\r\n",
      ...texts(48),
    ];
    for (const text of cases) {
      const git = execFileSync("git", ["stripspace"], { input: text, encoding: "utf8" });
      expect({ text, out: stripSpace(text) }).toEqual({ text, out: git });
    }
  });
});
