import { PRESET_NAMES } from "../agent/policy/presets.js";
import { ruleProblem } from "../agent/policy/rules.js";
import { applyCeilings, type OperatorCeilings } from "../config/ceilings.js";
import type { RepoConfig } from "../config/schema.js";
import { ACTION_DEFAULTS, ceilingEnvFields, ceilingsOf } from "../service/ceilings.js";
import * as z from "../zod.js";

/**
 * The Action's inputs (action.yml), parsed with zod. Every input is a string
 * on the runner, "" when not given; a given value overrides the repository
 * config file's setting. A bad value fails the step with `input <name>: ...`.
 * The workflow's `env:` may set the operator's ceilings (PATCHWRIGHT_MAX_COST_USD
 * and the rest, service/ceilings.ts): neither the config file nor an input
 * exceeds them.
 */

export const INPUT_NAMES = [
  "anthropic_api_key",
  "github_token",
  "app_id",
  "private_key",
  "trigger_phrase",
  "prompt",
  "model",
  "max_turns",
  "max_cost_usd",
  "policy",
  "allowed_commands",
  "verify_command",
  "config_path",
  "mode",
  "unsandboxed",
] as const;

export type InputName = (typeof INPUT_NAMES)[number];

/** Inputs that hold secrets: masked, and never echoed back in an error. */
export const SECRET_INPUTS: readonly InputName[] = [
  "anthropic_api_key",
  "github_token",
  "private_key",
];

/** "" means "not given": the config file (or its default) decides. */
function given<T extends z.ZodMiniType<unknown, string>>(schema: T) {
  return z.pipe(
    z.pipe(
      z.string(),
      z.transform((value) => (value.trim() === "" ? undefined : value.trim())),
    ),
    z.optional(schema),
  );
}

const oneLine = (what: string, max: number) =>
  z.string().check(
    z.maxLength(max, { error: `expected ${what} of at most ${max} characters` }),
    z.refine((text) => !/[\r\n]/.test(text), { error: `expected ${what} on a single line` }),
  );

const wholeNumber = z.pipe(
  z.pipe(
    z.string().check(z.regex(/^\d+$/, { error: "expected a whole number above 0, such as 30" })),
    z.transform(Number),
  ),
  z.number().check(z.int(), z.positive({ error: "expected a whole number above 0, such as 30" })),
);

const dollars = z.pipe(
  z.pipe(
    z.string().check(
      z.regex(/^\d+(\.\d+)?$/, {
        error: "expected a number of US dollars above 0, such as 2.5",
      }),
    ),
    z.transform(Number),
  ),
  z.number().check(z.positive({ error: "expected a number of US dollars above 0, such as 2.5" })),
);

/** One command pattern per line (`*` matches anything); blank lines and `#` comments are skipped. */
const commandList = z
  .pipe(
    z.string(),
    z.transform((text) =>
      text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== "" && !line.startsWith("#")),
    ),
  )
  .check(
    z.superRefine((commands, ctx) => {
      for (const command of commands) {
        const problem = ruleProblem(`run_shell: ${command}`);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }
    }),
  );

const repoPath = z.string().check(
  z.refine((path) => !path.startsWith("/") && !path.split("/").includes(".."), {
    error: "expected a path inside the repository, such as .github/patchwright.yml",
  }),
);

const inputsSchema = z
  .object({
    anthropic_api_key: given(z.string()),
    github_token: given(z.string()),
    app_id: given(
      z
        .string()
        .check(z.regex(/^\d+$/, { error: "expected the App's numeric id, such as 123456" })),
    ),
    private_key: given(
      z.string().check(
        z.includes("PRIVATE KEY", {
          error: "expected the App's private key in PEM form (-----BEGIN RSA PRIVATE KEY----- ...)",
        }),
      ),
    ),
    trigger_phrase: given(oneLine("a trigger phrase such as @agent", 50)),
    prompt: given(z.string()),
    model: given(oneLine("a model id such as claude-sonnet-5-5", 100)),
    max_turns: given(wholeNumber),
    max_cost_usd: given(dollars),
    policy: given(z.enum(PRESET_NAMES, { error: `expected one of ${PRESET_NAMES.join(", ")}` })),
    allowed_commands: commandList,
    verify_command: given(z.string()),
    config_path: given(repoPath),
    mode: z.pipe(
      z.pipe(
        z.string(),
        z.transform((value) => value.trim() || "auto"),
      ),
      z.enum(["auto", "deps", "review"], { error: "expected auto, deps or review" }),
    ),
    unsandboxed: z.pipe(
      z.pipe(
        z.pipe(
          z.string(),
          z.transform((value) => value.trim().toLowerCase() || "false"),
        ),
        z.enum(["true", "false"], { error: "expected true or false" }),
      ),
      z.transform((value) => value === "true"),
    ),
  })
  .check(
    z.superRefine((inputs, ctx) => {
      // Half of the App's credentials is a mistake, not a reason to fall back to github_token.
      if (inputs.app_id && !inputs.private_key)
        ctx.addIssue({
          code: "custom",
          path: ["private_key"],
          message: "required when app_id is given",
        });
      if (inputs.private_key && !inputs.app_id)
        ctx.addIssue({
          code: "custom",
          path: ["app_id"],
          message: "required when private_key is given",
        });
    }),
  );

export interface ActionInputs {
  anthropicApiKey?: string | undefined;
  githubToken?: string | undefined;
  /** Act as this GitHub App (its installation token), so pushes trigger other workflows. */
  app?: { id: string; privateKey: string } | undefined;
  triggerPhrase?: string | undefined;
  prompt?: string | undefined;
  model?: string | undefined;
  maxTurns?: number | undefined;
  maxCostUsd?: number | undefined;
  policy?: (typeof PRESET_NAMES)[number] | undefined;
  allowedCommands: string[];
  verifyCommand?: string | undefined;
  configPath?: string | undefined;
  mode: "auto" | "deps" | "review";
  /** Run repository code without a sandbox where none can start (an explicit, logged choice). */
  unsandboxed: boolean;
  /** From the workflow's environment; nothing capped where it sets none. */
  ceilings: OperatorCeilings;
}

export type InputsResult = { ok: true; inputs: ActionInputs } | { ok: false; message: string };

const ceilingEnvSchema = z.object(ceilingEnvFields);

/**
 * Reads every input through `getInput` and the ceilings from the workflow's
 * `env`, and parses them; all problems are reported at once.
 */
export function readInputs(
  getInput: (name: InputName) => string,
  env: Record<string, string | undefined> = {},
): InputsResult {
  const raw = Object.fromEntries(INPUT_NAMES.map((name) => [name, getInput(name)]));
  const parsed = inputsSchema.safeParse(raw);
  const ceilings = ceilingEnvSchema.safeParse(env);
  if (!parsed.success || !ceilings.success) {
    const lines = (parsed.error?.issues ?? []).map((issue) => {
      const name = String(issue.path[0] ?? "inputs") as InputName;
      const value = raw[name];
      const shown =
        value && !SECRET_INPUTS.includes(name) && !value.includes("\n") ? ` (got "${value}")` : "";
      return `input ${name}: ${issue.message}${shown}`;
    });
    for (const issue of ceilings.error?.issues ?? []) {
      lines.push(`env ${String(issue.path[0])}: ${issue.message}`);
    }
    return { ok: false, message: [...new Set(lines)].join("\n") };
  }
  const data = parsed.data;
  return {
    ok: true,
    inputs: {
      anthropicApiKey: data.anthropic_api_key,
      githubToken: data.github_token,
      app:
        data.app_id && data.private_key
          ? { id: data.app_id, privateKey: data.private_key }
          : undefined,
      triggerPhrase: data.trigger_phrase,
      prompt: data.prompt,
      model: data.model,
      maxTurns: data.max_turns,
      maxCostUsd: data.max_cost_usd,
      policy: data.policy,
      allowedCommands: data.allowed_commands,
      verifyCommand: data.verify_command,
      configPath: data.config_path,
      mode: data.mode,
      unsandboxed: data.unsandboxed,
      ceilings: ceilingsOf(ceilings.data, ACTION_DEFAULTS),
    },
  };
}

/** The repository's config with the given inputs laid over it, within the ceilings. */
export function applyInputs(config: RepoConfig, inputs: ActionInputs): RepoConfig {
  return applyCeilings(withInputs(config, inputs), inputs.ceilings);
}

function withInputs(config: RepoConfig, inputs: ActionInputs): RepoConfig {
  return {
    ...config,
    triggerPhrase: inputs.triggerPhrase ?? config.triggerPhrase,
    model: inputs.model ?? config.model,
    maxTurns: inputs.maxTurns ?? config.maxTurns,
    maxCostUsd: inputs.maxCostUsd ?? config.maxCostUsd,
    verify: inputs.verifyCommand ?? config.verify,
    policy: {
      ...config.policy,
      preset: inputs.policy ?? config.policy.preset,
      allow: [
        ...config.policy.allow,
        ...inputs.allowedCommands.map((command) => `run_shell: ${command}`),
      ],
    },
  };
}
