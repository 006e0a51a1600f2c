import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";

/**
 * The same check as `npm run lint` (depcruise with .dependency-cruiser.cjs),
 * so that `npm test` and CI enforce the rooms table and the absence of
 * import cycles too. Paths are relative to the repository root, where
 * vitest runs.
 */

/** One line per violation: the rule, then the import (or the whole cycle). */
function describeViolation(violation: IViolation): string {
  const path = violation.cycle?.length
    ? [violation.from, ...violation.cycle.map((step) => step.name)]
    : [violation.from, violation.to];
  return `${violation.rule.name}: ${path.join(" → ")}`;
}

describe("import boundaries", () => {
  it("src/ has no import cycles and no import against the rooms table", async () => {
    const options = await extractDepcruiseOptions("./.dependency-cruiser.cjs");
    const result = await cruise(
      ["src"],
      options,
      {},
      { tsConfig: extractTSConfig("./tsconfig.json") },
    );
    const violations = (result.output as ICruiseResult).summary.violations;
    expect(
      violations.map(describeViolation),
      "see the rooms table in .dependency-cruiser.cjs",
    ).toEqual([]);
  });
});
