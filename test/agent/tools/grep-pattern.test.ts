import { describe, expect, it } from "vitest";
import { expandBraces } from "../../../src/agent/tools/glob-braces.js";
import { compileSearchPattern } from "../../../src/agent/tools/grep-pattern.js";

const posix = (pattern: string): string => compileSearchPattern(pattern).posix;

describe("compileSearchPattern for git grep -E", () => {
  it("writes \\d \\w \\s and their negations as POSIX classes outside brackets", () => {
    expect(posix("a\\d+")).toBe("a[0-9]+");
    expect(posix("\\D")).toBe("[^0-9]");
    expect(posix("\\w+\\s*=")).toBe("[[:alnum:]_]+[[:space:]]*=");
    expect(posix("\\W\\S")).toBe("[^[:alnum:]_][^[:space:]]");
  });

  it("translates classes inside brackets, where POSIX takes a backslash literally", () => {
    expect(posix("[\\s=]+require\\(")).toBe("[[:space:]=]+require\\(");
    expect(posix("[\\w.-]+")).toBe("[[:alnum:]_.-]+");
    expect(posix("[\\d_]")).toBe("[0-9_]");
    expect(posix("[^\\s]")).toBe("[^[:space:]]");
  });

  it("makes a negated class inside a bracket an alternative, or refuses it in [^...]", () => {
    expect(posix("[\\S,]+")).toBe("([^[:space:]]|[,])+");
    expect(posix("[\\S]")).toBe("[^[:space:]]");
    expect(posix("[^\\S]")).toBe("[[:space:]]");
    expect(() => posix("[^\\S,]")).toThrow(
      /inside \[\^\.\.\.\], .* cannot be combined with other members/,
    );
    expect(() => posix("(a)[\\S,]\\1")).toThrow(/renumber the backreferences/);
  });

  it("turns \\t into a tab and escaped punctuation into the character itself", () => {
    expect(posix("foo\\tbar")).toBe("foo\tbar");
    expect(posix("it\\'s")).toBe("it's");
    expect(posix("a\\/b")).toBe("a/b");
    expect(posix("\\.\\*")).toBe("\\.\\*");
    expect(posix("\\\\d")).toBe("\\\\d");
  });

  it("writes bracket members POSIX-safely: ] first, - last, ^ not first", () => {
    expect(posix("[\\]]")).toBe("[]]");
    expect(posix("[\\-x]")).toBe("[x-]");
    expect(posix("[\\^]")).toBe("\\^");
    expect(posix("[\\^-]")).toBe("[-^]");
    expect(posix("[]d]\\d")).toBe("[]d][0-9]");
    expect(posix("[[:digit:]]d")).toBe("[0-9]d");
  });

  it("escapes a brace that is not a repetition, and keeps those that are", () => {
    expect(posix("f() {")).toBe("f() \\{");
    expect(posix("a{2,3}")).toBe("a{2,3}");
    expect(posix("x{,3}")).toBe("x{0,3}");
  });

  it("drops lazy markers and (?: and lets $ pass a CRLF line's \\r", () => {
    expect(posix("a+?b")).toBe("a+b");
    expect(posix("(?:get|set)Item")).toBe("(get|set)Item");
    expect(posix("(?<verb>get|set)X")).toBe("(get|set)X");
    expect(posix(";$")).toBe(";[\r]?$");
  });

  it("takes a leading (?i) as case-insensitive", () => {
    expect(compileSearchPattern("(?i)readme")).toMatchObject({ posix: "readme", ignoreCase: true });
    expect(compileSearchPattern("(?i)readme").js.test("README.md")).toBe(true);
  });

  it("refuses what git grep cannot do, with the reason and another way", () => {
    const cases: [string, RegExp][] = [
      ["(?<=x)y", /lookahead and lookbehind.*rg --pcre2/],
      ["(?!x)y", /lookahead/],
      ["a\\nb", /one line at a time.*rg -U/],
      ["a\nb", /line break/],
      ["\\p{L}", /Unicode property classes.*\[\[:alpha:\]\]/],
      ["a++", /possessive/],
      ["*a", /nothing before it to repeat; escape it \(\\\*\)/],
      ["foo(", /never closed; escape a literal parenthesis/],
      ["foo)", /no matching \(/],
      ["[abc", /\[ is never closed/],
      ["\\q", /\\q is not an escape/],
      ["a\\", /lone backslash/],
      ["[z-a]", /runs backwards/],
      ["(?x)a", /inline flags/],
      ["(a)\\2", /\\2 refers to a group that does not exist/],
    ];
    for (const [pattern, reason] of cases) {
      expect(() => compileSearchPattern(pattern), pattern).toThrow(reason);
    }
  });

  it("gives the walk outside git a JavaScript pattern that matches the same lines", () => {
    const lines = ['const x = require("a");', "foo\tbar", "a}b [x]", "  indent_me = 3;", "win;\r"];
    const hits = (pattern: string): number[] => {
      const { js } = compileSearchPattern(pattern);
      return lines.flatMap((line, i) => (js.test(line) ? [i + 1] : []));
    };
    expect(hits("[\\s=]+require\\(")).toEqual([1]);
    expect(hits("[[:space:]]+[[:alpha:]_]+ =")).toEqual([1, 4]);
    expect(hits("\\<foo\\>")).toEqual([2]);
    expect(hits(";$")).toEqual([1, 4, 5]);
    expect(hits("[\\]]")).toEqual([3]);
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
