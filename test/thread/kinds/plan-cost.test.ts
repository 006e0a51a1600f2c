import { describe, expect, it } from "vitest";
import { priceOf } from "../../../src/agent/model/pricing.js";
import { estimatePlanCost } from "../../../src/thread/kinds/plan-cost.js";
import { renderFollowedPlan } from "../../../src/thread/kinds/plan-report.js";

const usage = { inputTokens: 20_000, outputTokens: 1_000, cacheReadTokens: 0, cacheWriteTokens: 0 };
const base = {
  planUsage: usage,
  planCostUsd: 0.075,
  files: 3,
  complexity: "medium" as const,
  price: priceOf("claude-sonnet-4-5"),
  model: "claude-sonnet-4-5",
  maxCostUsd: 5,
};

describe("estimatePlanCost", () => {
  it("says what the plan cost, measured, and a range for the change, priced, as an estimate", () => {
    const cost = estimatePlanCost(base);
    expect(cost.planUsd).toBe(0.075);
    // Sonnet 4.5: $3 in, $15 out, $0.30 cache reads, $3.75 cache writes per million tokens;
    // the plan's own tokens again, plus 3 files of 6k in, 3k out, 40k cache reads, 6k cache writes.
    const low =
      (20_000 * 3 + 1_000 * 15 + 3 * (6_000 * 3 + 3_000 * 15 + 40_000 * 0.3 + 6_000 * 3.75)) / 1e6;
    expect(cost.low).toBeCloseTo(low, 6);
    expect(cost.high).toBeGreaterThan(low);
    expect(cost.markdown).toContain("Making this plan cost $0.0750 (measured).");
    expect(cost.markdown).toMatch(/roughly \$0\.\d{4} to \$0\.\d{4}/);
    expect(cost.markdown).toContain("an estimate, not a quote");
    expect(cost.markdown).toContain("3 files, medium complexity");
  });

  it("grows with the files and the complexity, and warns above the cost cap", () => {
    const small = estimatePlanCost({ ...base, complexity: "small" });
    const large = estimatePlanCost({ ...base, complexity: "large", files: 30 });
    expect(small.low ?? 0).toBeLessThan(estimatePlanCost(base).low ?? 0);
    expect(large.high ?? 0).toBeGreaterThan(5);
    expect(large.markdown).toContain("may exceed this repository's cap of $5.00");
  });

  it("gives no dollars it cannot know: an unknown price, or a plan whose files were not read", () => {
    expect(estimatePlanCost({ ...base, price: null }).markdown).toContain("is not known");
    const unread = estimatePlanCost({ ...base, files: undefined, complexity: undefined });
    expect(unread.low).toBeUndefined();
    expect(unread.markdown).toContain("No estimate for the change");
  });
});

describe("renderFollowedPlan", () => {
  const change = (path: string) => ({ path, before: null, after: Buffer.from("x") });

  it("links the plan and says where the result differs from it", () => {
    const text = renderFollowedPlan(
      { url: "https://x/c/1", files: ["src/a.js", "src/b.js"], by: "octocat", goBy: "hubot" },
      { changes: [change("src/a.js"), change("README.md")] },
    );
    expect(text).toContain("### Plan");
    expect(text).toContain("[the plan](https://x/c/1) made for @octocat; @hubot said go");
    expect(text).toContain("- Planned but not changed: `src/b.js`");
    expect(text).toContain("- Changed but not in the plan: `README.md`");
  });

  it("says so when the result matches, and shows a plan that was never posted", () => {
    const text = renderFollowedPlan(
      { files: ["src/a.js"], by: "octocat", text: "- [ ] `src/a.js`", planCostUsd: 0.01 },
      { changes: [change("src/a.js")] },
    );
    expect(text).toContain("The files changed are the ones the plan named.");
    expect(text).toContain("<summary>The plan</summary>");
    expect(text).toContain("it cost $0.0100");
    const brief = renderFollowedPlan(
      { files: ["src/a.js"], by: "octocat", text: "plan" },
      { changes: [] },
      { brief: true },
    );
    expect(brief).not.toContain("<details>");
    expect(brief).toContain("Planned but not changed: `src/a.js`");
  });
});
