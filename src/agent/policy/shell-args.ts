import { type PolicyFs, resolveInWorkspace } from "./paths.js";
import type { SimpleCommand } from "./shell-analysis.js";

export type PresetName = "read-only" | "default" | "trusted";

/** What a command check may consult besides the command itself. */
export interface CommandContext {
  preset: PresetName;
  root: string;
  packageScripts: readonly string[];
  fs: PolicyFs | undefined;
}

/** A denial sentence, or undefined when the command passes the check. */
export type Verdict = string | undefined;

/** read: the command reads it; write: creates or changes it; destroy: removes or moves it. */
export type PathMode = "read" | "write" | "destroy";

const READABLE_DEVICES = new Set(["/dev/null", "/dev/stdin", "/dev/zero"]);
const WRITABLE_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/** Shows a command the way the model wrote it, shortened for messages. */
export function quote(command: SimpleCommand): string {
  const text = command.text.length > 60 ? `${command.text.slice(0, 57)}...` : command.text;
  return `\`${text}\``;
}

/** Checks one path a command reads, writes or removes. */
export function checkPath(
  command: SimpleCommand,
  text: string,
  dynamic: boolean,
  mode: PathMode,
  ctx: CommandContext,
): Verdict {
  if (dynamic) {
    return `${quote(command)}: \`${text}\` is only known when the command runs, so the policy cannot check that it stays in the workspace; write the path out literally`;
  }
  if (text === "") return undefined;
  if (mode !== "read" && ctx.preset === "read-only" && !WRITABLE_DEVICES.has(text)) {
    return `${quote(command)} would change \`${text}\`, and the read-only preset does not allow changing files; report what you found instead`;
  }
  if (mode === "read" ? READABLE_DEVICES.has(text) : WRITABLE_DEVICES.has(text)) return undefined;
  let written = text;
  if (command.via?.startsWith("find") && text.includes("{}")) {
    if (mode !== "read") {
      return `${quote(command)}: the files \`find\` passes could include .git/, so changing them through \`find ${command.via.slice(5)}\` is not allowed; list the files first, then name them explicitly`;
    }
    written = text.replaceAll("{}", ".");
  }
  const resolved = resolveInWorkspace(written, ctx.root, ctx.fs);
  if (!resolved.inside) {
    return `${quote(command)}: \`${text}\` is outside the workspace; only files inside the workspace may be used`;
  }
  if (mode !== "read" && resolved.inGit) {
    return `${quote(command)}: .git/ is managed by git and the job and must not be changed directly; use git commands for repository state`;
  }
  if (mode === "destroy" && resolved.isRoot) {
    return `${quote(command)}: this would remove or move the whole workspace; name the files to change`;
  }
  return undefined;
}

export interface ArgumentSpec {
  /** Options that take the next word as their value. */
  values?: readonly string[];
  /** Options whose value (next word or after `=`) is a path, checked with this mode. */
  pathValues?: Readonly<Record<string, PathMode>>;
  /** The first operand is not a path (grep's pattern, sed's script) unless one of these options is given. */
  firstOperandUnless?: readonly string[];
}

export interface Argument {
  index: number;
  text: string;
  dynamic: boolean;
  /** The option this word is the value of, if it is one. */
  option: string | undefined;
}

/** Splits a command's arguments into option values and operands (everything after `--` is an operand). */
export function readArguments(
  command: SimpleCommand,
  spec: ArgumentSpec = {},
): { operands: Argument[]; values: Argument[] } {
  const operands: Argument[] = [];
  const values: Argument[] = [];
  const optionNames = [...(spec.values ?? []), ...Object.keys(spec.pathValues ?? {})];
  let optionsDone = false;
  for (let i = 1; i < command.argv.length; i += 1) {
    const text = command.argv[i] ?? "";
    const dynamic = command.dynamic[i] ?? false;
    if (optionsDone || dynamic || !text.startsWith("-") || text === "-") {
      operands.push({ index: i, text, dynamic, option: undefined });
    } else if (text === "--") {
      optionsDone = true;
    } else if (text.startsWith("--") && text.includes("=")) {
      const option = text.slice(0, text.indexOf("="));
      values.push({ index: i, text: text.slice(option.length + 1), dynamic, option });
    } else if (optionNames.includes(text)) {
      i += 1;
      const value = command.argv[i];
      if (value !== undefined) {
        values.push({ index: i, text: value, dynamic: command.dynamic[i] ?? false, option: text });
      }
    }
  }
  const skipFirst =
    spec.firstOperandUnless !== undefined &&
    !values.some((value) => value.option && spec.firstOperandUnless?.includes(value.option));
  return { operands: skipFirst ? operands.slice(1) : operands, values };
}

/** A static value that names somewhere outside the workspace (`/etc`, `~`, `../x`). */
function valueLooksOutside(value: Argument, ctx: CommandContext): boolean {
  if (value.dynamic || !/^[/~]|(^|\/)\.\.(\/|$)/.test(value.text)) return false;
  if (READABLE_DEVICES.has(value.text) || WRITABLE_DEVICES.has(value.text)) return false;
  return !resolveInWorkspace(value.text, ctx.root, ctx.fs).inside;
}

/**
 * The common check for commands whose operands are files: every operand is a
 * path inside the workspace (checked with `mode`), path-valued options too,
 * and no other option value points outside.
 */
export function checkArguments(
  command: SimpleCommand,
  ctx: CommandContext,
  mode: PathMode,
  spec: ArgumentSpec = {},
): Verdict {
  if (command.argsFromInput) {
    return `${quote(command)} through xargs takes its arguments from input, so the policy cannot check which files it touches; name the files explicitly (or use grep_search / list_files)`;
  }
  const { operands, values } = readArguments(command, spec);
  for (const operand of operands) {
    const verdict = checkPath(command, operand.text, operand.dynamic, mode, ctx);
    if (verdict) return verdict;
  }
  for (const value of values) {
    const pathMode = value.option ? spec.pathValues?.[value.option] : undefined;
    if (pathMode) {
      const verdict = checkPath(command, value.text, value.dynamic, pathMode, ctx);
      if (verdict) return verdict;
    } else if (valueLooksOutside(value, ctx)) {
      return `${quote(command)}: \`${value.text}\` is outside the workspace; only files inside the workspace may be used`;
    }
  }
  return undefined;
}

/** For commands whose arguments are not files (echo, printf, tr): nothing to check. */
export function noPaths(): Verdict {
  return undefined;
}
