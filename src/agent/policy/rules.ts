import picomatch from "picomatch";

/** Tools the policy knows; rules naming anything else are typos. */
export const POLICY_TOOLS = [
  "read_file",
  "write_file",
  "edit_file",
  "list_files",
  "grep_search",
  "run_shell",
] as const;

export type PolicyTool = (typeof POLICY_TOOLS)[number];

/** One parsed `tool: pattern` (or bare `tool`) rule. */
export interface Rule {
  /** The rule as written in the config, for denial messages. */
  source: string;
  tool: PolicyTool;
  /** The pattern, or null when the rule covers every call of the tool. */
  pattern: string | null;
  /** Path patterns: a path relative to the workspace root; run_shell: one command's text. */
  matches(subject: string): boolean;
}

export class PolicyRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PolicyRuleError";
  }
}

function isPolicyTool(name: string): name is PolicyTool {
  return (POLICY_TOOLS as readonly string[]).includes(name);
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

/** Parses `tool: pattern` or `tool`; throws PolicyRuleError naming the rule when it is malformed. */
export function parseRule(source: string): Rule {
  const colon = source.indexOf(":");
  const tool = (colon < 0 ? source : source.slice(0, colon)).trim();
  const pattern = colon < 0 ? null : source.slice(colon + 1).trim();
  if (!isPolicyTool(tool)) {
    throw new PolicyRuleError(
      `rule "${source}": unknown tool "${tool}"; write "tool: pattern" or "tool" with one of ${POLICY_TOOLS.join(", ")}`,
    );
  }
  if (pattern === "") {
    throw new PolicyRuleError(
      `rule "${source}": the pattern after ":" is empty; write "${tool}" alone to cover every call`,
    );
  }
  if (pattern === null) return { source, tool, pattern, matches: () => true };
  const matches =
    tool === "run_shell" ? compileShellPattern(pattern) : compilePathPattern(source, pattern);
  return { source, tool, pattern, matches };
}

/** The problem with a rule string, or undefined when it parses (for schema validation). */
export function ruleProblem(source: string): string | undefined {
  try {
    parseRule(source);
    return undefined;
  } catch (error) {
    if (error instanceof PolicyRuleError) return error.message;
    throw error;
  }
}

export function findRule(rules: readonly Rule[], tool: string, subject: string): Rule | undefined {
  return rules.find((rule) => rule.tool === tool && rule.matches(subject));
}
