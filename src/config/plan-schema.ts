import * as z from "../zod.js";

/**
 * A plan before code: whether a request is first planned by a read-only
 * run (thread/kinds/plan-task.ts), and when that plan waits for a person's
 * go. `@agent plan <task>` always plans and waits, whatever these say.
 * Kept apart from schema.ts so the feature's keys live in one place.
 */

export const planFileShape = {
  /**
   * never: requests go straight to code (as before); always: every request
   * is planned and waits for `@agent go`; large: planned first, and waits
   * only when the plan touches more than `plan_first_files` files.
   */
  plan_first: z._default(
    z.enum(["never", "large", "always"], { error: 'expected "never", "large" or "always"' }),
    "never",
  ),
  /** With `plan_first: large`: a plan touching more files than this waits for a go. */
  plan_first_files: z._default(z.wholeNumber(1, "expected a whole number of files, 1 or more"), 5),
};

export type PlanFirst = "never" | "large" | "always";

export interface PlanConfig {
  planFirst: { mode: PlanFirst; maxFiles: number };
}

export function toPlanConfig(file: {
  plan_first: PlanFirst;
  plan_first_files: number;
}): PlanConfig {
  return { planFirst: { mode: file.plan_first, maxFiles: file.plan_first_files } };
}
