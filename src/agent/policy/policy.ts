import { readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { parseJsonText } from "../../json-text.js";
import * as z from "../../zod.js";
import type { PolicyCall, PolicyCheck, PolicyDecision, ToolFacts } from "../tools/define-tool.js";
import { malformedPath } from "../tools/fs/paths.js";
import { defaultTools } from "../tools/index.js";
import { createNodePolicyFs, type PolicyFs, resolveInWorkspace } from "./paths.js";
import { PRESET_NAMES, type PresetName, toolPresetDenial } from "./presets.js";
import {
  BUILTIN_RULE_TOOLS,
  findRule,
  PolicyRuleError,
  parseRule,
  type Rule,
  type RuleTools,
  ruleProblem,
} from "./rules.js";
import { loadShellParser, type ShellParser } from "./shell-parser.js";
import type { shellCallDenial } from "./shell-policy.js";

export type { PolicyFs } from "./paths.js";
export { PRESET_NAMES, type PresetName } from "./presets.js";
export {
  POLICY_TOOLS,
  PolicyRuleError,
  parseRule,
  type Rule,
} from "./rules.js";
export type { CommandAnalysis, SimpleCommand } from "./shell-command.js";
export { loadShellParser, type ShellParser } from "./shell-parser.js";
export type { Redirect } from "./shell-words.js";

/** The policy config for an agent with these tools: rules may name any of them (and MCP tools). */
function policyConfigSchemaFor(tools: RuleTools) {
  const ruleString = z.string().check(
    z.superRefine((source, ctx) => {
      const problem = ruleProblem(source, tools);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  );
  return z.strictObject({
    preset: z._default(z.enum(PRESET_NAMES), "default"),
    allow: z._default(z.array(ruleString), []),
    deny: z._default(z.array(ruleString), []),
  });
}

/**
 * The user-facing policy config. Rules stay strings here (so the schema has a
 * JSON Schema and error paths like `allow[2]`); `loadPolicyRules` parses them.
 */
export const policyConfigSchema = policyConfigSchemaFor(BUILTIN_RULE_TOOLS);

export type PolicyConfig = z.output<typeof policyConfigSchema>;
export type PolicyConfigInput = z.input<typeof policyConfigSchema>;

/** Parsed config plus what evaluating calls needs to know about the workspace. */
export interface PolicyRules {
  preset: PresetName;
  allow: Rule[];
  deny: Rule[];
  /** Real path of the workspace root. */
  root: string;
  /** Script names from the workspace's package.json (for `npm run <script>`). */
  packageScripts: string[];
  shell: ShellParser;
  /**
   * The shell commands' verdict (shell-policy.ts). Loaded with the grammar,
   * not imported beside this file: it and the command analysis under it are
   * a good part of the policy's code, and the Action's first model request
   * does not wait for them (no tool call comes before its answer).
   */
  shellDenial: typeof shellCallDenial;
  /** The facts of every tool the agent has (built-in and MCP), by name. */
  tools: ReadonlyMap<string, ToolFacts>;
  /**
   * Symlink resolution and existence checks (node_modules/.bin for npx).
   * Without it paths are judged lexically and npx only runs its short list.
   */
  fs?: PolicyFs;
}

export interface LoadPolicyOptions {
  root: string;
  /** Read from `<root>/package.json` when not given. */
  packageScripts?: string[];
  fs?: PolicyFs;
  /** The agent's tools (default: the built-in ones); rules may name any of them. */
  tools?: readonly ToolFacts[];
}

function toolMap(tools: readonly ToolFacts[]): Map<string, ToolFacts> {
  return new Map(tools.map((tool) => [tool.name, tool]));
}

async function readPackageScripts(root: string): Promise<string[]> {
  try {
    const manifest: unknown = parseJsonText(
      await readFile(path.join(root, "package.json"), "utf8"),
    );
    const scripts = z.object({ scripts: z.record(z.string(), z.unknown()) }).safeParse(manifest);
    return scripts.success ? Object.keys(scripts.data.scripts) : [];
  } catch {
    // No package.json (or an unreadable one): the repository simply has no npm scripts.
    return [];
  }
}

/**
 * Validates a policy config; throws PolicyRuleError naming the bad field or
 * rule. `tools`: the agent's tools, when it has more than the built-in ones.
 */
export function parsePolicyConfig(
  config: PolicyConfigInput,
  tools?: readonly ToolFacts[],
): PolicyConfig {
  const schema = tools ? policyConfigSchemaFor(toolMap(tools)) : policyConfigSchema;
  const result = schema.safeParse(config);
  if (!result.success) {
    throw new PolicyRuleError(`invalid policy config:\n${z.prettifyError(result.error)}`);
  }
  return result.data;
}

/**
 * Validates the config, parses its rules and gathers the workspace facts the
 * policy needs. Throws PolicyRuleError (naming the bad field or rule) for an invalid config.
 */
export async function loadPolicyRules(
  config: PolicyConfigInput,
  options: LoadPolicyOptions,
): Promise<PolicyRules> {
  const tools = toolMap(options.tools ?? defaultTools());
  const parsed = parsePolicyConfig(config, options.tools);
  const root = await realpath(options.root);
  const parse = (source: string) => parseRule(source, tools);
  const [{ shellCallDenial }, shell] = await Promise.all([
    import("./shell-policy.js"),
    loadShellParser(),
  ]);
  return {
    preset: parsed.preset,
    allow: parsed.allow.map(parse),
    deny: parsed.deny.map(parse),
    root,
    tools,
    packageScripts: options.packageScripts ?? (await readPackageScripts(root)),
    shell,
    shellDenial: shellCallDenial,
    fs: options.fs ?? createNodePolicyFs(),
  };
}

/** Glob fields (list_files pattern, grep_search include) must not reach outside either. */
function globDenial(call: PolicyCall, facts: ToolFacts): string | undefined {
  for (const field of facts.globFields) {
    const glob = call.input[field];
    if (typeof glob !== "string") continue;
    if (glob.startsWith("/") || glob.startsWith("~") || glob.split("/").includes("..")) {
      return `\`${call.tool}\`: the ${field} \`${glob}\` reaches outside the workspace; use a pattern relative to the workspace root`;
    }
  }
  return undefined;
}

/** A tool's paths, its first path field being the subject rules match; an optional search path means the root. */
function pathCallDecision(call: PolicyCall, facts: ToolFacts, rules: PolicyRules): PolicyDecision {
  let subject = "";
  let inGit = false;
  for (const [index, field] of facts.pathFields.entries()) {
    const value = call.input[field] ?? (facts.kind === "search" ? "." : undefined);
    if (value === undefined && index > 0) continue;
    if (typeof value !== "string") {
      return deny(
        `\`${call.tool}\` needs a \`${field}\` string; pass a path relative to the workspace root`,
      );
    }
    // "~/x" or "lib\\a.js" is a mistake with its own fix, not an escape: say which.
    const malformed = malformedPath(value);
    if (malformed) return deny(malformed);
    const resolved = resolveInWorkspace(value, rules.root, rules.fs);
    if (!resolved.inside) {
      return deny(
        `\`${call.tool} ${value}\`: the path is outside the workspace; use a path relative to the workspace root`,
      );
    }
    if (index === 0) subject = resolved.relative === "" ? "." : resolved.relative;
    inGit ||= resolved.inGit;
  }
  const denyRule = findRule(rules.deny, call.tool, subject);
  if (denyRule) {
    return deny(
      `\`${call.tool} ${subject}\` matches the deny rule \`${denyRule.source}\` in the policy config; leave that path alone`,
    );
  }
  if (!facts.readOnly && inGit) {
    return deny(
      `\`${call.tool} ${subject}\`: .git/ is managed by git and the job and must not be written; change files in the working tree`,
    );
  }
  const outside = globDenial(call, facts);
  if (outside) return deny(outside);
  if (findRule(rules.allow, call.tool, subject)) return { allow: true };
  const verdict = toolPresetDenial(rules.preset, facts, subject);
  return verdict ? deny(verdict) : { allow: true };
}

function shellCallDecision(call: PolicyCall, rules: PolicyRules): PolicyDecision {
  const command = call.input.command;
  if (typeof command !== "string" || command.trim() === "") {
    return deny(`\`${call.tool}\` needs a non-empty \`command\` string`);
  }
  let verdict: string | undefined;
  try {
    verdict = rules.shellDenial(command, { ...rules, fs: rules.fs });
  } catch {
    // A check must never throw into the agent loop; what cannot be analysed is not run.
    verdict = "the command could not be analysed; send a shorter, simpler command";
  }
  return verdict ? deny(verdict) : { allow: true };
}

function deny(reason: string): PolicyDecision {
  return { allow: false, reason };
}

/**
 * The verdict on one tool call: deny rules win, then allow rules, then the
 * preset. What is checked comes from the tool's own facts (kind, path and
 * glob fields); a tool the registry does not hold is trusted only by `trusted`.
 */
export function evaluate(call: PolicyCall, rules: PolicyRules): PolicyDecision {
  const facts = rules.tools.get(call.tool);
  if (facts?.kind === "shell") return shellCallDecision(call, rules);
  if (facts && facts.pathFields.length > 0) return pathCallDecision(call, facts, rules);
  const denyRule = findRule(rules.deny, call.tool, "");
  if (denyRule) {
    return deny(
      `\`${call.tool}\` matches the deny rule \`${denyRule.source}\` in the policy config; do without it`,
    );
  }
  if (facts && findRule(rules.allow, call.tool, "")) return { allow: true };
  const verdict = toolPresetDenial(rules.preset, facts ?? { name: call.tool }, "");
  return verdict ? deny(verdict) : { allow: true };
}

/** Binds rules into the check the tool registry calls before every tool runs. */
export function createPolicyCheck(rules: PolicyRules): PolicyCheck {
  return (call) => evaluate(call, rules);
}
