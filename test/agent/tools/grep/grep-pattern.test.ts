import { describe, expect, it } from "vitest";
import { expandBraces } from "../../../../src/agent/tools/fs/glob-braces.js";
import { compileSearchPattern } from "../../../../src/agent/tools/grep/grep-pattern.js";

const source = (pattern: string): string => compileSearchPattern(pattern).regex.source;
const literals = (pattern: string, ci = false): string[] | null =>
  compileSearchPattern(pattern, ci).literals;

describe("compileSearchPattern: one JavaScript dialect", () => {
  it("keeps JavaScript's own syntax as it is", () => {
    expect(source("(?:get|post)\\(")).toBe("(?:get|post)\\(");
    expect(source("(?<=require\\()'[^']+'")).toBe("(?<=require\\()'[^']+'");
    expect(source("(?<verb>get|set)\\k<verb>")).toBe("(?<verb>get|set)\\k<verb>");
    expect(source("\\d+\\.\\d+")).toBe("\\d+\\.\\d+");
    expect(source("[\\S,]+")).toBe("[\\S,]+");
    expect(source("a+?b")).toBe("a+?b");
    expect(source("\\p{Lu}\\p{Ll}+")).toBe("\\p{Lu}\\p{Ll}+");
    expect(compileSearchPattern("x").regex.flags).toBe("su");
  });

  it("translates the PCRE and POSIX spellings that mean exactly one JavaScript thing", () => {
    expect(source("[[:alpha:]_][[:digit:]]")).toBe("[A-Za-z_][0-9]");
    expect(source("\\Aa\\z")).toBe("^a$");
    expect(source("\\<foo\\>")).toBe("\\b(?=\\w)foo\\b(?<=\\w)");
    expect(source("(?P<n>a)(?P=n)")).toBe("(?<n>a)\\k<n>");
    expect(source("\\Qa.b(c)\\E+")).toBe("a\\.b\\(c\\)+");
    expect(source("\\x{e9}\\e")).toBe("\\u{e9}\\u{1b}");
    expect(source("a(?#why)b")).toBe("ab");
    expect(source("x{,3}")).toBe("x{0,3}");
    expect(source("f() {")).toBe("f() \\{");
    expect(source("a]b}")).toBe("a\\]b\\}");
  });

  it("takes a leading (?i) as the case_insensitive option", () => {
    const leading = compileSearchPattern("(?i)readme");
    expect(leading.ignoreCase).toBe(true);
    expect(leading.regex.flags).toBe("isu");
    expect(leading.regex.test("README.md")).toBe(true);
    expect(compileSearchPattern("readme", true).regex.test("ReadMe")).toBe(true);
    expect(compileSearchPattern("readme").regex.test("ReadMe")).toBe(false);
  });

  it("refuses what it cannot translate, with the rewrite to use", () => {
    const cases: [string, RegExp][] = [
      ["foo(?i)bar", /inline flags "\(\?i\)" at column 4.*set case_insensitive: true/],
      ["(?i:get)", /inline flags "\(\?i:".*case_insensitive/],
      ["(?x)a b", /inline flag "x"/],
      ["a++", /possessive repetition "\+\+" at column 2.*write "\+"/],
      ["(?>a+)b", /atomic group.*use a plain group \(\?:\.\.\.\)/],
      ["a\\Kb", /\\K at column 2 is not supported/],
      ["a\\nb", /\\n at column 2 stands for a line break; grep_search matches one line at a time/],
      ["a\nb", /holds a line break \(column 2\)/],
      ["\\p{Greek}", /write \\p\{Script=Greek\}/],
      ["\\g{-1}", /relative backreference.*write the group's number/],
      ["\\1(a)", /\\1 at column 1 comes before its group has matched/],
      ["(a\\1)", /\\1 at column 3 comes before its group has matched/],
      ["\\k<q>(?<q>')", /the backreference to "q" at column 1 comes before/],
    ];
    for (const [pattern, reason] of cases) {
      expect(() => compileSearchPattern(pattern), pattern).toThrow(reason);
    }
  });

  it("says a pattern is invalid, and where", () => {
    const cases: [string, RegExp][] = [
      ["foo(", /not a valid regular expression: the "\(" at column 4 is never closed/],
      ["foo)", /the "\)" at column 4 has no matching "\("/],
      ["[abc", /the "\[" at column 1 is never closed/],
      ["*a", /"\*" at column 1 has nothing before it to repeat; escape it \(\\\*\)/],
      ["a{3,1}", /\{3,1\} at column 2 has its numbers in the wrong order/],
      ["\\q", /\\q at column 1 is not an escape JavaScript knows/],
      ["a\\", /ends with a lone backslash \(column 2\)/],
      ["[z-a]", /the range z-a in the set at column 1 runs backwards/],
      ["(a)\\2", /\\2 at column 4 refers to group 2, but the pattern has only 1/],
      ["\\k<x>", /names the group "x", which the pattern does not define/],
      ["(?=a)*", /repeats a lookaround/],
      ["\\p{Nope}", /not a Unicode property JavaScript knows/],
    ];
    for (const [pattern, reason] of cases) {
      expect(() => compileSearchPattern(pattern), pattern).toThrow(reason);
    }
  });

  it("finds the text every matching line must hold, for skipping lines and files", () => {
    expect(literals("function\\s+handle\\w+")).toEqual(["function"]);
    expect(literals("res\\.send\\(")).toEqual(["res.send("]);
    expect(literals("colou?r")).toEqual(["colo"]);
    expect(literals("get|post")).toEqual(["get", "post"]);
    expect(literals("(get|post)Item")).toEqual(["Item"]);
    expect(literals("get|\\d+")).toBeNull();
    expect(literals("\\d+")).toBeNull();
    // Without case: ASCII only, never k or s (they also fold to U+212A and U+017F).
    expect(literals("CreateServerMask", true)).toEqual(["erverma"]);
    expect(literals("(?i)café au lait", true)).toEqual([" au lait"]);
  });
});

describe("expandBraces", () => {
  it("expands comma lists, nested ones too", () => {
    expect(expandBraces("*.{ts,tsx}")).toEqual(["*.ts", "*.tsx"]);
    expect(expandBraces("{src,test}/**/*.{js,mjs}")).toEqual([
      "src/**/*.js",
      "src/**/*.mjs",
      "test/**/*.js",
      "test/**/*.mjs",
    ]);
    expect(expandBraces("a{b,{c,d}}")).toEqual(["ab", "ac", "ad"]);
  });

  it("leaves globs without a list alone", () => {
    expect(expandBraces("*.ts")).toEqual(["*.ts"]);
    expect(expandBraces("{x}.ts")).toEqual(["{x}.ts"]);
  });
});
