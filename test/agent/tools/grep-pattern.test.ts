import { describe, expect, it } from "vitest";
import { expandBraces, toPosixRegex } from "../../../src/agent/tools/grep-pattern.js";

describe("toPosixRegex", () => {
  it("rewrites \\d and \\D outside and inside brackets", () => {
    expect(toPosixRegex("a\\d+")).toBe("a[0-9]+");
    expect(toPosixRegex("\\D")).toBe("[^0-9]");
    expect(toPosixRegex("[\\d_]")).toBe("[0-9_]");
  });

  it("leaves other escapes, classes and literal brackets alone", () => {
    expect(toPosixRegex("\\s+\\w\\.")).toBe("\\s+\\w\\.");
    expect(toPosixRegex("[[:digit:]]d")).toBe("[[:digit:]]d");
    expect(toPosixRegex("[]d]\\d")).toBe("[]d][0-9]");
    expect(toPosixRegex("\\\\d")).toBe("\\\\d");
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
