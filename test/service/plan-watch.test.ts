import { describe, expect, it } from "vitest";
import { nextLookMs, PLAN_WAIT_MS } from "../../src/service/job-kinds/plan-watch.js";

describe("how often a plan is looked at for a 👍", () => {
  it("every 15 s at first, then a tenth of its age, at most every 15 minutes", () => {
    expect(nextLookMs(0)).toBe(15_000);
    expect(nextLookMs(2 * 60_000)).toBe(15_000);
    expect(nextLookMs(5 * 60_000)).toBe(30_000);
    expect(nextLookMs(60 * 60_000)).toBe(6 * 60_000);
    expect(nextLookMs(PLAN_WAIT_MS)).toBe(15 * 60_000);
  });

  it("costs a bounded number of looks over the whole wait", () => {
    let age = 0;
    let looks = 0;
    while (age < PLAN_WAIT_MS) {
      age += nextLookMs(age);
      looks += 1;
    }
    expect(looks).toBeLessThan(200);
  });
});
