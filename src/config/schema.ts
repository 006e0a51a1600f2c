import { type McpServersConfig, mcpServersSchema } from "../agent/mcp/config.js";
import { modelSpecProblem } from "../agent/model/model-spec.js";
import { type PriceSetting, priceSettingSchema } from "../agent/model/pricing.js";
import { policyConfigSchema } from "../agent/policy/policy.js";
import { isValidBranchName } from "../git/branch.js";
import { type NetworkPolicy, networkPolicy, networkSettingSchema } from "../sandbox/network.js";
import * as z from "../zod.js";
import { durationSchema } from "./duration.js";
import { type PlanConfig, planFileShape, toPlanConfig } from "./plan-schema.js";
import {
  ciFixSchema,
  toUpkeepConfig,
  type UpkeepConfig,
  upkeepFileShape,
} from "./upkeep-schema.js";

/**
 * `.github/patchwright.yml`: every key is optional and snake_case in the file.
 * `configFileSchema` is the file as written (strict, so a typo such as
 * `max_turn` is reported instead of silently ignored); `configSchema` parses
 * the same input and outputs `RepoConfig`, the camelCase shape code uses.
 * Error paths always name the snake_case key the maintainer wrote.
 */

import { DEFAULT_LABEL, DEFAULT_TRIGGER_PHRASE } from "./defaults.js";

export { DEFAULT_CONFIG_PATH } from "./defaults.js";
export const DEFAULT_BOT_NAME = "patchwright[bot]";
export const DEFAULT_BOT_EMAIL = "patchwright[bot]@users.noreply.github.com";

const positiveNumber = (message: string) =>
  z.number({ error: message }).check(z.positive({ error: message }));

/** One line of text that is not blank (a trigger phrase, a label, a model id). */
const lineOfText = (what: string, max: number) =>
  z.string({ error: `expected ${what}` }).check(
    z.trim(),
    z.minLength(1, { error: `expected ${what}, not an empty string` }),
    z.maxLength(max, { error: `expected ${what} of at most ${max} characters` }),
    z.refine((text) => !/[\r\n]/.test(text), { error: `expected ${what} on a single line` }),
  );

const command = z
  .string({ error: "expected a shell command (a string)" })
  .check(z.trim(), z.minLength(1, { error: "expected a shell command, not an empty string" }));

const branchPrefix = z.string({ error: 'expected a branch prefix such as "agent/"' }).check(
  z.refine((prefix) => prefix.endsWith("/"), {
    error: 'expected a branch prefix ending with "/", such as "agent/"',
  }),
  z.refine((prefix) => isValidBranchName(`${prefix}x`), {
    error: "expected a prefix git accepts in a branch name (no spaces, ~ ^ : ? * [ \\ .. or @{)",
  }),
);

const botIdentitySchema = z.strictObject({
  name: z._default(lineOfText("a commit author name", 100), DEFAULT_BOT_NAME),
  email: z._default(
    z.string({ error: "expected an email address" }).check(
      z.trim(),
      z.regex(/^[^\s@]+@[^\s@]+$/, {
        error: "expected an email address such as bot@example.com",
      }),
    ),
    DEFAULT_BOT_EMAIL,
  ),
});

export const configFileSchema = z.strictObject({
  /** Matched as a whole word, case-insensitively, by the triggers. */
  trigger_phrase: z._default(
    lineOfText("a trigger phrase such as @agent", 50),
    DEFAULT_TRIGGER_PHRASE,
  ),
  /** Labelling an issue with this starts a job. GitHub caps label names at 50 characters. */
  label: z._default(lineOfText("a label name", 50), DEFAULT_LABEL),
  /** A bare Anthropic id, or provider/id: anthropic/, bedrock/, vertex/, openai/. */
  model: z._default(
    lineOfText("a model id such as claude-sonnet-5-5", 200).check(
      z.superRefine((text, ctx) => {
        const problem = modelSpecProblem(text);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }),
    ),
    "claude-sonnet-5-5",
  ),
  /** USD per million tokens for models the price table does not know, keyed like `model:`. */
  pricing: z.optional(
    z.record(lineOfText("a model such as openai/my-model", 200), priceSettingSchema, {
      error:
        'expected a mapping of model to prices, e.g. "openai/my-model": { input: 1.5, output: 6 }',
    }),
  ),
  /** MCP servers whose tools the agent may use (the .mcp.json shape, under this key). */
  mcp_servers: z.optional(mcpServersSchema),
  max_turns: z._default(z.wholeNumber(1, "expected a whole number above 0"), 50),
  max_cost_usd: z._default(positiveNumber("expected a number of US dollars above 0"), 5),
  /** The most a budget named in a request (`@agent …, budget $2`) may set; unset: `max_cost_usd`. */
  max_cost_per_request_usd: z.optional(positiveNumber("expected a number of US dollars above 0")),
  max_minutes: z._default(positiveNumber("expected a number of minutes above 0"), 30),
  // prefault, not default: in zod 4 a default value skips the inner schema, so
  // `preset`, `allow` and `deny` would not get their own defaults.
  policy: z.prefault(policyConfigSchema, {}),
  /** Commands run in the workspace before the agent starts (installing dependencies). */
  setup: z._default(z.array(command, { error: "expected a list of shell commands" }), []),
  /** The repository's check command run after the agent; null skips verification. */
  verify: z._default(z.nullable(command), null),
  /** How long verify and each setup command may run before they are stopped. */
  verify_timeout: z._default(durationSchema, 15 * 60),
  /** The network of the agent's commands and verify: off, on, or a list of hosts. */
  network: z._default(networkSettingSchema, "off"),
  /** The network of the setup commands: on by default, since installs need it. */
  setup_network: z._default(networkSettingSchema, "on"),
  branch_prefix: z._default(branchPrefix, "agent/"),
  squash: z._default(z.boolean({ error: "expected true or false" }), false),
  draft_on_failure: z._default(z.boolean({ error: "expected true or false" }), true),
  /** Bot logins allowed to trigger jobs, as GitHub shows them (e.g. "renovate[bot]"). */
  allowed_bots: z._default(
    z.array(lineOfText("a bot login such as renovate[bot]", 100), {
      error: "expected a list of bot logins",
    }),
    [],
  ),
  /** true: a short, polite reply to people without write access; false: no reply at all. */
  answer_unauthorized: z._default(z.boolean({ error: "expected true or false" }), true),
  bot: z.prefault(botIdentitySchema, {}),
  ...upkeepFileShape,
  ...planFileShape,
  /**
   * Settings for scheduled dependency bumps. Accepted as any mapping for now:
   * the dependency-bump feature validates it when it lands.
   */
  deps: z.optional(z.looseObject({}, { error: "expected a mapping of dependency settings" })),
});

export type ConfigFile = z.input<typeof configFileSchema>;
type ParsedConfigFile = z.output<typeof configFileSchema>;

export interface RepoConfig extends UpkeepConfig, PlanConfig {
  triggerPhrase: string;
  label: string;
  model: string;
  maxTurns: number;
  maxCostUsd: number;
  /** The ceiling of a request's own budget (thread/budget.ts); undefined: `maxCostUsd`. */
  maxCostPerRequestUsd?: number;
  maxMinutes: number;
  policy: ParsedConfigFile["policy"];
  setup: string[];
  verify: string | null;
  verifyTimeoutSeconds: number;
  network: NetworkPolicy;
  setupNetwork: NetworkPolicy;
  branchPrefix: string;
  squash: boolean;
  draftOnFailure: boolean;
  allowedBots: string[];
  answerUnauthorized: boolean;
  bot: { name: string; email: string };
  /** Unvalidated until the dependency-bump feature defines it. */
  deps?: Record<string, unknown>;
  /** Prices for models the table does not know (see agent/pricing.ts). */
  pricing?: Record<string, PriceSetting>;
  mcpServers?: McpServersConfig;
  /** Settings the operator's ceilings lowered, one line each for the report (config/ceilings.ts). */
  capped?: string[];
  /** What the request's budget did to `maxCostUsd`, for the tracking comment and the report (thread/budget.ts). */
  budgetNote?: string;
}

function toRepoConfig(file: ParsedConfigFile): RepoConfig {
  const config: RepoConfig = {
    triggerPhrase: file.trigger_phrase,
    label: file.label,
    model: file.model,
    maxTurns: file.max_turns,
    maxCostUsd: file.max_cost_usd,
    maxMinutes: file.max_minutes,
    policy: file.policy,
    setup: file.setup,
    verify: file.verify,
    verifyTimeoutSeconds: file.verify_timeout,
    network: networkPolicy(file.network),
    setupNetwork: networkPolicy(file.setup_network),
    branchPrefix: file.branch_prefix,
    squash: file.squash,
    draftOnFailure: file.draft_on_failure,
    allowedBots: file.allowed_bots,
    answerUnauthorized: file.answer_unauthorized,
    bot: file.bot,
    ...toUpkeepConfig(file),
    ...toPlanConfig(file),
  };
  if (file.deps !== undefined) config.deps = file.deps;
  if (file.pricing !== undefined) config.pricing = file.pricing;
  if (file.max_cost_per_request_usd !== undefined)
    config.maxCostPerRequestUsd = file.max_cost_per_request_usd;
  if (file.mcp_servers !== undefined) config.mcpServers = file.mcp_servers;
  return config;
}

/** Parses the file's content (already loaded from YAML) into `RepoConfig`. */
export const configSchema = z.pipe(configFileSchema, z.transform(toRepoConfig));

/** The settings a repository without `.github/patchwright.yml` gets. */
export function defaultConfig(): RepoConfig {
  return configSchema.parse({});
}

/** Known keys per mapping, for "did you mean" hints on unknown keys. */
export function knownKeys(path: readonly PropertyKey[]): string[] {
  const where = path.join(".");
  if (where === "") return Object.keys(configFileSchema.shape);
  if (where === "policy") return Object.keys(policyConfigSchema.shape);
  if (where === "bot") return Object.keys(botIdentitySchema.shape);
  if (where === "ci_fix") return Object.keys(ciFixSchema.shape);
  return [];
}
