import { addUsage, type ModelPrice, type Usage } from "../../agent/model/model.js";
import { costWith } from "../../agent/model/pricing.js";
import { formatUsd, inlineCode, plural } from "../../github/markdown.js";
import type { Complexity } from "./plan-output.js";

/**
 * What a plan cost, and a guess at what carrying it out will cost. Pure.
 *
 * The plan's own cost is measured (its run's usage at the model's price).
 * The rest is an estimate and says so: the code the plan read will be read
 * again, and each file it names takes some more reading, writing and test
 * runs, more for a harder change. Those token counts are rules of thumb,
 * priced at the model's rates (agent/model/pricing.ts); the range is the
 * rule of thumb and twice it.
 */

/** Tokens one planned file takes to change, at medium complexity: reads mostly from the prompt cache. */
const PER_FILE: Usage = {
  inputTokens: 6_000,
  outputTokens: 3_000,
  cacheReadTokens: 40_000,
  cacheWriteTokens: 6_000,
};

const WEIGHT: Record<Complexity, number> = { small: 0.5, medium: 1, large: 2 };

export interface PlanCostInput {
  /** The planning run's usage and cost, as measured. */
  planUsage: Usage;
  planCostUsd: number;
  /** Files the plan names (none: it could not be read), and how hard the model judged the work. */
  files: number | undefined;
  complexity: Complexity | undefined;
  /** The model's price per million tokens; null: not known (no estimate in dollars). */
  price: ModelPrice | null;
  model: string;
  /** The job's cost cap (max_cost_usd). */
  maxCostUsd: number;
}

export interface PlanCost {
  planUsd: number;
  /** The estimate for the change, when there is one. */
  low?: number | undefined;
  high?: number | undefined;
  markdown: string;
}

function scaled(usage: Usage, by: number): Usage {
  return {
    inputTokens: usage.inputTokens * by,
    outputTokens: usage.outputTokens * by,
    cacheReadTokens: usage.cacheReadTokens * by,
    cacheWriteTokens: usage.cacheWriteTokens * by,
  };
}

export function estimatePlanCost(input: PlanCostInput): PlanCost {
  const measured = `Making this plan cost ${formatUsd(input.planCostUsd)} (measured).`;
  if (input.files === undefined || input.complexity === undefined) {
    return {
      planUsd: input.planCostUsd,
      markdown: `${measured} No estimate for the change: the plan's files could not be read.`,
    };
  }
  if (!input.price) {
    return {
      planUsd: input.planCostUsd,
      markdown: `${measured} No estimate in dollars for the change: the price of ${inlineCode(input.model)} is not known (set it under \`pricing:\`).`,
    };
  }
  const work = scaled(PER_FILE, Math.max(1, input.files) * WEIGHT[input.complexity]);
  const low = costWith(input.price, addUsage(input.planUsage, work));
  const high = costWith(input.price, addUsage(input.planUsage, scaled(work, 2)));
  const capped =
    high > input.maxCostUsd
      ? ` That may exceed this repository's cap of ${formatUsd(input.maxCostUsd)} a job (\`max_cost_usd\`), where the job would stop.`
      : "";
  return {
    planUsd: input.planCostUsd,
    low,
    high,
    markdown: [
      measured,
      `Carrying it out: roughly ${formatUsd(low)} to ${formatUsd(high)}.${capped}`,
      `_This is an estimate, not a quote: the code this plan read, read again, plus a rule of thumb per planned file (${plural(input.files, "file")}, ${input.complexity} complexity as the model judged it), priced at ${inlineCode(input.model)}'s rates._`,
    ].join(" "),
  };
}
