import picomatch from "picomatch";
import type { ToolFacts } from "../tools/define-tool.js";
import { defaultTools } from "../tools/index.js";

/**
 * What a rule needs to know about the tool it names: its kind decides how a
 * pattern is read (a command for shell tools, a path otherwise).
 */
export type RuleTools = ReadonlyMap<string, Pick<ToolFacts, "kind" | "pathFields">>;

/** The built-in tools, for rules checked before any registry exists (flags, config). */
export const BUILTIN_RULE_TOOLS: RuleTools = new Map(
  defaultTools().map((tool) => [tool.name, tool] as const),
);

/** Built-in tool names, for messages and docs. */
export const POLICY_TOOLS: readonly string[] = [...BUILTIN_RULE_TOOLS.keys()];

/**
 * MCP tools arrive at run time, so rules name them by shape:
 * `mcp__<server>__<tool>`, or `mcp__<server>__*` for every tool of a server.
 */
const MCP_RULE_NAME = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)__([A-Za-z0-9_-]+|\*)$/;

/** One parsed `tool: pattern` (or bare `tool`) rule. */
export interface Rule {
  /** The rule as written in the config, for denial messages. */
  source: string;
  /** The tool name as written (`mcp__tickets__*` for every tool of a server). */
  tool: string;
  /** The pattern, or null when the rule covers every call of the tool. */
  pattern: string | null;
  /** Whether the rule is about this tool. */
  names(tool: string): boolean;
  /** Path patterns: a path relative to the workspace root; shell tools: one command's text. */
  matches(subject: string): boolean;
}

export class PolicyRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PolicyRuleError";
  }
}

/** Collapses whitespace so `npm  test` and `npm test` are one command text. */
export function normalizeCommandText(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

/** `*` matches any run of characters (spaces included); everything else is literal. */
function compileShellPattern(pattern: string): (text: string) => boolean {
  const source = normalizeCommandText(pattern)
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\s\\S]*");
  const regex = new RegExp(`^${source}$`);
  return (text) => regex.test(normalizeCommandText(text));
}

function compilePathPattern(source: string, pattern: string): (path: string) => boolean {
  const cleaned = pattern.replace(/^(\.\/)+/, "");
  if (cleaned.startsWith("/") || cleaned.startsWith("~")) {
    throw new PolicyRuleError(
      `rule "${source}": path patterns are relative to the workspace root; drop the leading "${cleaned[0]}"`,
    );
  }
  if (cleaned.split("/").includes("..")) {
    throw new PolicyRuleError(
      `rule "${source}": path patterns cannot leave the workspace; remove the ".." segment`,
    );
  }
  const isMatch = picomatch(cleaned, { dot: true });
  return (path) => isMatch(path);
}

/**
 * Parses `tool: pattern` or `tool`; throws PolicyRuleError naming the rule
 * when it is malformed. `tools` are the tools rules may name besides MCP ones.
 */
export function parseRule(source: string, tools: RuleTools = BUILTIN_RULE_TOOLS): Rule {
  const colon = source.indexOf(":");
  const tool = (colon < 0 ? source : source.slice(0, colon)).trim();
  const pattern = colon < 0 ? null : source.slice(colon + 1).trim();
  const mcp = MCP_RULE_NAME.exec(tool);
  const facts = tools.get(tool);
  if (!facts && !mcp) {
    throw new PolicyRuleError(
      `rule "${source}": unknown tool "${tool}"; write "tool: pattern" or "tool" with one of ${[...tools.keys()].join(", ")}, or an MCP tool as mcp__<server>__<tool>`,
    );
  }
  if (pattern === "") {
    throw new PolicyRuleError(
      `rule "${source}": the pattern after ":" is empty; write "${tool}" alone to cover every call`,
    );
  }
  const names =
    mcp?.[2] === "*"
      ? (name: string) => name.startsWith(`mcp__${mcp[1]}__`)
      : (name: string) => name === tool;
  if (pattern === null) return { source, tool, pattern, names, matches: () => true };
  if (!facts || (facts.kind !== "shell" && facts.pathFields.length === 0)) {
    throw new PolicyRuleError(
      `rule "${source}": "${tool}" has no path or command to match a pattern against; write "${tool}" alone`,
    );
  }
  const matches =
    facts.kind === "shell" ? compileShellPattern(pattern) : compilePathPattern(source, pattern);
  return { source, tool, pattern, names, matches };
}

/** The problem with a rule string, or undefined when it parses (for schema validation). */
export function ruleProblem(
  source: string,
  tools: RuleTools = BUILTIN_RULE_TOOLS,
): string | undefined {
  try {
    parseRule(source, tools);
    return undefined;
  } catch (error) {
    if (error instanceof PolicyRuleError) return error.message;
    throw error;
  }
}

export function findRule(rules: readonly Rule[], tool: string, subject: string): Rule | undefined {
  return rules.find((rule) => rule.names(tool) && rule.matches(subject));
}
