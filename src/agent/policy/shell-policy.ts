import { commandPresetDenial } from "./command-presets.js";
import { type PolicyFs, resolveInWorkspace } from "./paths.js";
import { findRule, type Rule } from "./rules.js";
import { analyzeCommand } from "./shell-analysis.js";
import { type CommandContext, checkPath, type PresetName, type Verdict } from "./shell-args.js";
import type { SimpleCommand } from "./shell-command.js";
import { invariantDenial } from "./shell-invariants.js";
import type { ShellParser } from "./shell-parser.js";
import { isInput, isOutput, type ShellWord } from "./shell-words.js";

export interface ShellPolicy {
  preset: PresetName;
  allow: readonly Rule[];
  deny: readonly Rule[];
  root: string;
  packageScripts: readonly string[];
  shell: ShellParser;
  fs: PolicyFs | undefined;
}

/** Redirect targets under the read-only and default presets. */
function redirectDenial(command: SimpleCommand, ctx: CommandContext): Verdict {
  for (const redirect of command.redirects) {
    const output = isOutput(redirect);
    if (!output && !isInput(redirect)) continue;
    const shown = `${command.text} ${redirect.op} ${redirect.target}`.trim();
    const verdict = checkPath(
      { ...command, text: shown },
      redirect.target,
      redirect.dynamic,
      output ? "write" : "read",
      ctx,
    );
    if (verdict) return verdict;
  }
  return undefined;
}

/** Patterns the shell expands into file names stay inside the workspace (read-only and default). */
function patternDenial(patterns: readonly ShellWord[], ctx: CommandContext): Verdict {
  for (const pattern of patterns) {
    if (pattern.dynamic) {
      return `the pattern \`${pattern.text}\` is only known when the command runs, so the policy cannot check where it expands; write the folder out literally`;
    }
    if (!resolveInWorkspace(pattern.text, ctx.root, ctx.fs).inside) {
      return `the pattern \`${pattern.text}\` expands to names outside the workspace; use a pattern inside the workspace (list_files lists files by pattern)`;
    }
  }
  return undefined;
}

/** Commands whose last operand is the file they write. */
const COPYING = new Set(["cp", "mv", "install", "ln"]);

/**
 * The workspace files a call's commands visibly write (output redirects,
 * tee, the target of cp and mv), as paths relative to the root.
 */
function filesWritten(commands: readonly SimpleCommand[], policy: ShellPolicy): Set<string> {
  const written: string[] = [];
  for (const command of commands) {
    for (const redirect of command.redirects) {
      if (isOutput(redirect) && !redirect.dynamic) written.push(redirect.target);
    }
    const [name = "", ...args] = command.argv;
    const operands = args.filter((arg, i) => !arg.startsWith("-") && !command.dynamic[i + 1]);
    if (name === "tee") written.push(...operands);
    if (COPYING.has(name) && operands.length > 1) written.push(operands.at(-1) ?? "");
  }
  const relative = new Set<string>();
  for (const path of written) {
    const resolved = resolveInWorkspace(path, policy.root, policy.fs);
    if (resolved.inside) relative.add(resolved.relative);
  }
  return relative;
}

/**
 * run_shell: deny rules first (any command matching one denies the call),
 * then constructs that hide what runs (for the trusted preset only those that
 * hide which program runs), then file-name patterns, then every command must
 * pass the invariants and either an allow rule or the preset. One bad command
 * in a chain denies the whole call.
 */
export function shellCallDenial(text: string, policy: ShellPolicy): Verdict {
  const analysis = analyzeCommand(policy.shell, text);
  for (const command of analysis.commands) {
    const rule = findRule(policy.deny, "run_shell", command.text);
    if (rule) {
      return `\`${command.text}\` matches the deny rule \`${rule.source}\` in the policy config; find another way that does not need it`;
    }
  }
  if (analysis.parseError) return analysis.parseError;
  const trusted = policy.preset === "trusted";
  const hazard = (trusted ? analysis.opaque : analysis.hazards)[0];
  if (hazard) return hazard;
  const ctx: CommandContext = {
    preset: policy.preset,
    root: policy.root,
    packageScripts: policy.packageScripts,
    fs: policy.fs,
    writtenInCall: filesWritten(analysis.commands, policy),
  };
  const pattern = trusted ? undefined : patternDenial(analysis.patterns, ctx);
  if (pattern) return pattern;
  for (const command of analysis.commands) {
    const verdict =
      invariantDenial(command, ctx) ??
      (trusted ? undefined : redirectDenial(command, ctx)) ??
      (findRule(policy.allow, "run_shell", command.text)
        ? undefined
        : commandPresetDenial(command, ctx));
    if (verdict) return verdict;
  }
  return undefined;
}
