import { type PolicyFs, resolveInWorkspace } from "./paths.js";
import { commandPresetDenial } from "./presets.js";
import { findRule, type Rule } from "./rules.js";
import { analyzeCommand, type Redirect, type SimpleCommand } from "./shell-analysis.js";
import { type CommandContext, checkPath, type PresetName, type Verdict } from "./shell-args.js";
import { WRITING_COMMANDS } from "./shell-files.js";
import { gitPushDenial } from "./shell-git.js";
import type { ShellParser } from "./shell-parser.js";

export interface ShellPolicy {
  preset: PresetName;
  allow: readonly Rule[];
  deny: readonly Rule[];
  root: string;
  packageScripts: readonly string[];
  shell: ShellParser;
  fs: PolicyFs | undefined;
}

const OUTPUT_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const FD = /^(\d+|-)$/;

function isOutput(redirect: Redirect): boolean {
  return OUTPUT_OPS.has(redirect.op) || (redirect.op === ">&" && !FD.test(redirect.target));
}

function isInput(redirect: Redirect): boolean {
  return (
    redirect.op === "<" ||
    redirect.op === "<>" ||
    (redirect.op === "<&" && !FD.test(redirect.target))
  );
}

function baseName(command: SimpleCommand): SimpleCommand {
  const name = command.argv[0] ?? "";
  return { ...command, argv: [name.slice(name.lastIndexOf("/") + 1), ...command.argv.slice(1)] };
}

function intoGit(text: string, ctx: CommandContext): boolean {
  const resolved = resolveInWorkspace(text, ctx.root, ctx.fs);
  return resolved.inside && resolved.inGit;
}

const GIT_WRITE =
  "is managed by git and the job and must not be changed directly; use git commands for repository state";

/** What every preset denies, allow rules notwithstanding: pushing and writing into .git/. */
function invariantDenial(command: SimpleCommand, ctx: CommandContext): Verdict {
  const named = baseName(command);
  const push = gitPushDenial(named);
  if (push) return push;
  const name = named.argv[0] ?? "";
  if (WRITING_COMMANDS.has(name) || name === "cd") {
    const target = named.argv.slice(1).find((arg, i) => {
      if (command.dynamic[i + 1] || (arg.startsWith("-") && !arg.includes("="))) return false;
      return intoGit(arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : arg, ctx);
    });
    if (target !== undefined)
      return `\`${command.text}\`: \`${target}\` is inside .git/, which ${GIT_WRITE}`;
  }
  for (const redirect of command.redirects) {
    if (isOutput(redirect) && !redirect.dynamic && intoGit(redirect.target, ctx)) {
      return `\`${`${command.text} ${redirect.op} ${redirect.target}`.trim()}\`: .git/ ${GIT_WRITE}`;
    }
  }
  return undefined;
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

/**
 * run_shell: deny rules first (any command matching one denies the call),
 * then constructs that hide what runs, then every command must pass the
 * invariants and either an allow rule or the preset. One bad command in a
 * chain denies the whole call.
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
  if (!trusted && analysis.hazards.length > 0) return analysis.hazards[0];
  const ctx: CommandContext = {
    preset: policy.preset,
    root: policy.root,
    packageScripts: policy.packageScripts,
    fs: policy.fs,
  };
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
