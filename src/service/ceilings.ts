import { modelSpecProblem } from "../agent/model/model-spec.js";
import { NETWORK_LEVELS, type OperatorCeilings } from "../config/ceilings.js";
import * as z from "../zod.js";
import { failTransform } from "../zod.js";

/**
 * The operator's ceilings as environment variables (see config/ceilings.ts
 * for what each one caps). The App's and the worker's environment is parsed
 * with these fields in service/env.ts; the Action reads the same names from
 * its workflow's `env:`.
 *
 *   PATCHWRIGHT_MAX_COST_USD=5              per job
 *   PATCHWRIGHT_MODELS="claude-sonnet-4-5, claude-haiku-*, openai/gpt-4.1*"
 *   PATCHWRIGHT_PRICING_FROM_REPOS=false    a repository's `pricing:` ignored
 *   PATCHWRIGHT_MAX_NETWORK=public          off | hosts | public | on
 *   PATCHWRIGHT_REPO_MCP=false              a repository's `mcp_servers:` not started
 */

const unset = (value: string | undefined) => value === undefined || value.trim() === "";

const onOff = z.pipe(
  z.optional(z.string()),
  z.transform((value, ctx) => {
    if (unset(value)) return undefined;
    if (/^(1|true|yes|on)$/i.test(value ?? "")) return true;
    if (/^(0|false|no|off)$/i.test(value ?? "")) return false;
    return failTransform(ctx, `expected true or false, got "${value}"`);
  }),
);

const dollars = z.pipe(
  z.optional(z.string()),
  z.transform((value, ctx) => {
    if (unset(value)) return undefined;
    const amount = Number(value);
    if (Number.isFinite(amount) && amount > 0) return amount;
    return failTransform(ctx, `expected US dollars above 0, such as 5, got "${value}"`);
  }),
);

const GLOB = /[*?[\]{}!]/;

/** Comma- or space-separated globs; the first is a model id (what a repository asking for another gets). */
const modelList = z.pipe(
  z.optional(z.string()),
  z.transform((value, ctx) => {
    if (unset(value)) return undefined;
    const globs = (value ?? "").split(/[\s,]+/).filter(Boolean);
    const [first = ""] = globs;
    const problem = GLOB.test(first)
      ? `the first entry ("${first}") is the model a repository gets when it asks for one not on the list, so it must be a model id, not a pattern`
      : modelSpecProblem(first);
    if (problem) return failTransform(ctx, problem);
    return globs;
  }),
);

const network = z.pipe(
  z.optional(z.string()),
  z.transform((value, ctx) => {
    if (unset(value)) return undefined;
    const level = (value ?? "").trim().toLowerCase();
    if ((NETWORK_LEVELS as readonly string[]).includes(level)) {
      return level as (typeof NETWORK_LEVELS)[number];
    }
    return failTransform(ctx, `expected ${NETWORK_LEVELS.join(", ")}, got "${value}"`);
  }),
);

/** The fields, to spread into an environment schema. */
export const ceilingEnvFields = {
  PATCHWRIGHT_MAX_COST_USD: dollars,
  PATCHWRIGHT_MODELS: modelList,
  PATCHWRIGHT_PRICING_FROM_REPOS: onOff,
  PATCHWRIGHT_MAX_NETWORK: network,
  PATCHWRIGHT_REPO_MCP: onOff,
};

type ParsedCeilingEnv = z.output<z.ZodMiniObject<typeof ceilingEnvFields>>;

/**
 * The App (and its workers) serve repositories whose writers are not the
 * operator, so what they choose about money and the operator's environment
 * starts closed: a repository's prices are not taken (a price of 0 would
 * make any cost cap meaningless), and its MCP servers are not started (an
 * HTTP server is reached from the App's own host, with `${VAR}` headers
 * filled from the App's environment; a stdio server is a command of the
 * repository's with a network of its own). The Action runs in the
 * repository's own workflow, whose author is its operator: nothing is
 * closed there unless the workflow's `env:` says so.
 */
export const SERVICE_DEFAULTS = { pricingFromRepos: false, repoMcp: false } as const;
export const ACTION_DEFAULTS = { pricingFromRepos: true, repoMcp: true } as const;

export function ceilingsOf(
  parsed: ParsedCeilingEnv,
  defaults: { pricingFromRepos: boolean; repoMcp: boolean },
): OperatorCeilings {
  return {
    maxCostUsd: parsed.PATCHWRIGHT_MAX_COST_USD,
    models: parsed.PATCHWRIGHT_MODELS,
    pricingFromRepos: parsed.PATCHWRIGHT_PRICING_FROM_REPOS ?? defaults.pricingFromRepos,
    maxNetwork: parsed.PATCHWRIGHT_MAX_NETWORK ?? "on",
    repoMcp: parsed.PATCHWRIGHT_REPO_MCP ?? defaults.repoMcp,
  };
}
