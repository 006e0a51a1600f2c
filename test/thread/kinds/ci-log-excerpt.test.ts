import { describe, expect, it } from "vitest";
import { cutLog, failureFingerprint } from "../../../src/thread/kinds/ci-log-excerpt.js";

const log = (stamp: string, ms: number) =>
  [
    `${stamp} ##[group]Run actions/setup-node@v5`,
    `${stamp} Installed node 24 in ${ms}ms`,
    `${stamp} ##[endgroup]`,
    `${stamp} ##[group]Run npm test`,
    ...Array.from({ length: 200 }, (_, i) => `${stamp} ok ${i} passing test ${i}`),
    `${stamp} \u001b[31mnot ok 201 adds numbers\u001b[0m`,
    `${stamp}   AssertionError: expected 5, got -1 (took ${ms}ms)`,
    ...Array.from({ length: 50 }, (_, i) => `${stamp} ok ${i + 202} more`),
    `${stamp} ##[error]Process completed with exit code 1.`,
  ].join("\n");

describe("cutLog", () => {
  it("keeps the failing step's error lines with context and its end, without timestamps or colours", () => {
    const { text, errorLines } = cutLog(log("2026-11-30T10:00:00.1234567Z", 12));
    expect(text).toContain("--- step: npm test");
    expect(text).toContain("not ok 201 adds numbers");
    expect(text).toContain("AssertionError: expected 5, got -1");
    expect(text).toContain("error: Process completed with exit code 1.");
    expect(text).not.toContain("2026-11-30T");
    expect(text).not.toContain("\u001b[");
    // The passing steps and the long run of passing tests are cut.
    expect(text).not.toContain("setup-node");
    expect(text).not.toContain("passing test 10\n");
    expect(text).toMatch(/\[\.\.\. \d+ lines \.\.\.\]/);
    expect(errorLines.some((line) => line.includes("AssertionError"))).toBe(true);
  });

  it("stays under its cap, keeping the end", () => {
    const { text } = cutLog(log("2026-11-30T10:00:00Z", 1), 500);
    expect(text.length).toBeLessThan(600);
    expect(text).toContain("exit code 1");
  });

  it("falls back to the last step when no step is marked as failed", () => {
    const { text } = cutLog("##[group]Run make\nbuilding\nsegfault\n");
    expect(text).toContain("segfault");
  });
});

describe("failureFingerprint", () => {
  it("is the same for the same failure on another run and differs for another failure", () => {
    const a = cutLog(log("2026-11-30T10:00:00Z", 12));
    const b = cutLog(log("2026-12-01T08:30:00Z", 97));
    const other = cutLog(log("2026-11-30T10:00:00Z", 12).replace("adds numbers", "parses dates"));
    const fp = (x: typeof a) =>
      failureFingerprint([{ name: "CI / test", errorLines: x.errorLines }]);
    expect(fp(a)).toMatch(/^[0-9a-f]{12}$/);
    expect(fp(b)).toBe(fp(a));
    expect(fp(other)).not.toBe(fp(a));
  });
});
