import type { ActionReport } from "./step-summary.js";

/** How a run ends: the report for outputs and summary, and why the step fails, if it does. */
export interface ActionResult {
  report: ActionReport;
  /** Set when the step must fail: the message for `setFailed`. */
  failure?: string | undefined;
}

export function failed(message: string): ActionResult {
  return {
    report: { conclusion: "failure", headline: message.split("\n")[0] ?? message },
    failure: message,
  };
}

export function skipped(reason: string): ActionResult {
  return { report: { conclusion: "skipped", headline: reason } };
}
