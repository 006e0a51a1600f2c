import { describe, expect, it } from "vitest";
import { isolateCulprits } from "../../../src/deps/group/bisect.js";

const items = ["a", "b", "c", "d", "e", "f", "g", "h"];

describe("isolateCulprits", () => {
  it("finds a single culprit in log2(n) checks and keeps the rest", async () => {
    const tried: string[][] = [];
    const result = await isolateCulprits({
      items,
      knownFailing: true,
      passes: async (subset) => {
        tried.push([...subset]);
        return !subset.includes("f");
      },
    });
    expect(result).toMatchObject({
      culprits: ["f"],
      kept: ["a", "b", "c", "d", "e", "g", "h"],
      settled: true,
    });
    expect(result.checks).toBe(4);
  });

  it("finds several culprits, and an interaction between two updates", async () => {
    const several = await isolateCulprits({
      items,
      passes: async (subset) => !subset.includes("b") && !subset.includes("g"),
    });
    expect(several.culprits).toEqual(["b", "g"]);
    expect(several.kept).toEqual(["a", "c", "d", "e", "f", "h"]);
    // c and e only break together: the later one is named, the other stays.
    const pair = await isolateCulprits({
      items,
      passes: async (s) => !(s.includes("c") && s.includes("e")),
    });
    expect(pair).toMatchObject({ culprits: ["e"], kept: ["a", "b", "c", "d", "f", "g", "h"] });
  });

  it("stops at the budget without claiming a passing set", async () => {
    const result = await isolateCulprits({ items, maxChecks: 2, passes: async () => false });
    expect(result).toMatchObject({ kept: [], settled: false, checks: 2, passing: [] });
  });

  it("says the largest set a check saw pass when the budget runs out (lerna: two culprits in 48)", async () => {
    const many = Array.from({ length: 48 }, (_, i) => `u${i}`);
    // u30 and u40 each break the build; 6 checks find u30, and the budget ends while the
    // second search has seen u0-u35 (u30 out) pass.
    const result = await isolateCulprits({
      items: many,
      knownFailing: true,
      maxChecks: 8,
      passes: async (subset) => !subset.includes("u30") && !subset.includes("u40"),
    });
    expect(result).toMatchObject({ settled: false, kept: [], culprits: ["u30"] });
    expect(result.passing).toEqual(many.slice(0, 36).filter((u) => u !== "u30"));
  });
});
