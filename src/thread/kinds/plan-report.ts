import type { ChangeResult } from "../../change/change.js";
import { clip, details, formatUsd, inlineCode, plural } from "../../github/markdown.js";
import { planDifference } from "./plan-output.js";

/**
 * The "Plan" section of a change that carried out a plan: in the pull
 * request's body and, briefer, under the final report. It links the plan
 * (or shows it, when it was made in the same job and never posted) and
 * says where the result differs: files the plan named that were not
 * changed, and files changed that it did not name.
 */

/** A plan a change carries out (kinds/go.ts, or plan_first without a wait: kinds/plan-task.ts). */
export interface FollowedPlan {
  /** The plan comment; none when the plan was made in the same job and never posted. */
  url?: string | undefined;
  /** The files the plan named. */
  files: string[];
  /** Who asked for the plan, and who said go. */
  by: string;
  goBy?: string | undefined;
  /** The plan's words, shown when there is no comment to link. */
  text?: string | undefined;
  /** What making the plan cost, when it was made in the same job. */
  planCostUsd?: number | undefined;
}

const MAX_LISTED = 30;

function listed(paths: readonly string[]): string {
  const shown = paths.slice(0, MAX_LISTED).map((path) => inlineCode(path, 200));
  const more = paths.length > MAX_LISTED ? ` and ${paths.length - MAX_LISTED} more` : "";
  return `${shown.join(", ")}${more}`;
}

export function renderFollowedPlan(
  plan: FollowedPlan,
  job: Pick<ChangeResult, "changes">,
  options: { brief?: boolean } = {},
): string {
  const origin = plan.url
    ? `This change carries out [the plan](${plan.url}) made for @${plan.by}${plan.goBy ? `; @${plan.goBy} said go` : ""}.`
    : `This change carries out a plan made first in this job by a read-only run${plan.planCostUsd !== undefined ? ` (it cost ${formatUsd(plan.planCostUsd)})` : ""}; it named ${plural(plan.files.length, "file")}, few enough to go ahead without waiting for a go.`;
  const { notChanged, unplanned } = planDifference(
    plan.files,
    job.changes.map((change) => change.path),
  );
  const differences =
    notChanged.length === 0 && unplanned.length === 0
      ? "The files changed are the ones the plan named."
      : [
          "Where the result differs from the plan:",
          ...(notChanged.length > 0 ? [`- Planned but not changed: ${listed(notChanged)}`] : []),
          ...(unplanned.length > 0 ? [`- Changed but not in the plan: ${listed(unplanned)}`] : []),
        ].join("\n");
  const shown =
    !options.brief && !plan.url && plan.text ? details("The plan", clip(plan.text, 20_000)) : "";
  return [options.brief ? "**Plan**" : "### Plan", origin, differences, shown]
    .filter(Boolean)
    .join("\n\n");
}
