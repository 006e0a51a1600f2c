import { type PolicyFs, resolveInWorkspace } from "./paths.js";
import type { SimpleCommand } from "./shell-command.js";
import { pathLikeTail, splitOption } from "./shell-options.js";

export type PresetName = "read-only" | "default" | "trusted";

/** What a command check may consult besides the command itself. */
export interface CommandContext {
  preset: PresetName;
  root: string;
  packageScripts: readonly string[];
  fs: PolicyFs | undefined;
  /**
   * Workspace files (relative) another command of the same call writes: what
   * a program file holds when it runs is then not what the policy reads now.
   */
  writtenInCall: ReadonlySet<string>;
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
  /** Options that take a value that is not a path (a pattern, a count, a delimiter). */
  values?: readonly string[];
  /** Options whose value (next word, after `=` or glued) is a path, checked with this mode. */
  pathValues?: Readonly<Record<string, PathMode>>;
  /** Options whose value is a file listing more files to open: those files are out of sight. */
  namesFrom?: readonly string[];
  /** The first operand is not a path (grep's pattern, sed's script) unless one of these options is given. */
  firstOperandUnless?: readonly string[];
}

export interface Argument {
  index: number;
  text: string;
  dynamic: boolean;
  /** The option this word is the value of, if it is one. */
  option: string | undefined;
  /** False for the value of an option the spec does not name (`--x=v`, `-Xv`): maybe a path. */
  declared: boolean;
}

/** Every option of the spec that takes a value. */
function valuedOptions(spec: ArgumentSpec): Set<string> {
  return new Set([
    ...(spec.values ?? []),
    ...Object.keys(spec.pathValues ?? {}),
    ...(spec.namesFrom ?? []),
  ]);
}

/**
 * Splits a command's arguments into option values and operands (everything
 * after `--` is an operand). Values glued to short options count like
 * separate ones; an unknown option's glued value that reads like a path is
 * kept as an undeclared value.
 */
export function readArguments(
  command: SimpleCommand,
  spec: ArgumentSpec = {},
): { operands: Argument[]; values: Argument[] } {
  const operands: Argument[] = [];
  const values: Argument[] = [];
  const valued = valuedOptions(spec);
  let optionsDone = false;
  for (let i = 1; i < command.argv.length; i += 1) {
    const text = command.argv[i] ?? "";
    const dynamic = command.dynamic[i] ?? false;
    if (optionsDone || !text.startsWith("-") || text === "-") {
      operands.push({ index: i, text, dynamic, option: undefined, declared: false });
      continue;
    }
    if (dynamic) {
      // `--output=$HOME/x`: the option is literal, only its value expands.
      const split = dynamicOption(text, valued);
      if (split) values.push({ index: i, text: split.value, dynamic, ...split.option });
      else operands.push({ index: i, text, dynamic, option: undefined, declared: false });
      continue;
    }
    if (text === "--") {
      optionsDone = true;
      continue;
    }
    const option = splitOption(text, valued);
    const declared = option.takesValue;
    if (option.glued !== undefined) {
      values.push({ index: i, text: option.glued, dynamic, option: option.name, declared });
    } else if (declared && i + 1 < command.argv.length) {
      i += 1;
      const value = { text: command.argv[i] ?? "", dynamic: command.dynamic[i] ?? false };
      values.push({ index: i, ...value, option: option.name, declared });
    } else {
      const tail = text.startsWith("--") ? undefined : pathLikeTail(text);
      if (tail !== undefined) {
        values.push({ index: i, text: tail, dynamic, option: text, declared: false });
      }
    }
  }
  const skipFirst =
    spec.firstOperandUnless !== undefined &&
    !values.some((value) => value.option && spec.firstOperandUnless?.includes(value.option));
  return { operands: skipFirst ? operands.slice(1) : operands, values };
}

/**
 * A dynamic word that starts with a literal option (`--output=$X`,
 * `-o"$X"`): the option and its run-time value. An expansion keeps its
 * source text (`$`, backtick, brace), so a name of plain letters is literal.
 */
function dynamicOption(
  text: string,
  valued: ReadonlySet<string>,
): { option: { option: string; declared: boolean }; value: string } | undefined {
  const long = /^(--[A-Za-z0-9][A-Za-z0-9-]*)=([\s\S]*)$/.exec(text);
  if (long?.[1] !== undefined) {
    return { option: { option: long[1], declared: valued.has(long[1]) }, value: long[2] ?? "" };
  }
  if (text.startsWith("--")) return undefined;
  const short = splitOption(text, valued);
  if (short.takesValue && short.glued !== undefined) {
    return { option: { option: short.name, declared: true }, value: short.glued };
  }
  // `-O$X`: letters, then the expansion; whatever option takes it, its value is unknown.
  const cluster = /^(-[A-Za-z0-9]+)([$`][\s\S]*)$/.exec(text);
  return cluster?.[1] !== undefined
    ? { option: { option: cluster[1], declared: false }, value: cluster[2] ?? "" }
    : undefined;
}

/** A static value that names somewhere outside the workspace (`/etc`, `~`, `../x`). */
function valueLooksOutside(value: Argument, ctx: CommandContext): boolean {
  if (value.dynamic || !/^[/~]|(^|\/)\.\.(\/|$)/.test(value.text)) return false;
  if (READABLE_DEVICES.has(value.text) || WRITABLE_DEVICES.has(value.text)) return false;
  return !resolveInWorkspace(value.text, ctx.root, ctx.fs).inside;
}

/**
 * An option the spec does not name may take a path: its value may not name
 * somewhere outside, nor be known only at run time (`--contents=$HOME/x`).
 */
export function undeclaredValueDenial(
  command: SimpleCommand,
  value: Argument,
  ctx: CommandContext,
): Verdict {
  if (value.declared) return undefined;
  const given = value.option === undefined ? "" : ` (given with \`${value.option}\`)`;
  if (value.dynamic) {
    return `${quote(command)}: \`${value.text}\`${given} is only known when the command runs, and the option may take a path, so the policy cannot check that it stays in the workspace; write the value out literally`;
  }
  return valueLooksOutside(value, ctx)
    ? `${quote(command)}: \`${value.text}\` is outside the workspace${given}; only files inside the workspace may be used`
    : undefined;
}

/** Options that open files named inside another file, which the policy never sees. */
function namesFromDenial(command: SimpleCommand, values: Argument[], spec: ArgumentSpec): Verdict {
  const list = values.find((value) => value.option && spec.namesFrom?.includes(value.option));
  return list
    ? `${quote(command)}: \`${list.option}\` reads the names of the files to open from \`${list.text}\`, so the policy cannot check them; pass the file names as arguments instead`
    : undefined;
}

/**
 * The common check for commands whose operands are files: every operand is a
 * path inside the workspace (checked with `mode`), path-valued options too,
 * and no undeclared option value points outside.
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
  const names = namesFromDenial(command, values, spec);
  if (names) return names;
  for (const operand of operands) {
    const verdict = checkPath(command, operand.text, operand.dynamic, mode, ctx);
    if (verdict) return verdict;
  }
  for (const value of values) {
    const pathMode = value.option ? spec.pathValues?.[value.option] : undefined;
    if (pathMode) {
      const verdict = checkPath(command, value.text, value.dynamic, pathMode, ctx);
      if (verdict) return verdict;
    } else {
      const verdict = undeclaredValueDenial(command, value, ctx);
      if (verdict) return verdict;
    }
  }
  return undefined;
}

/** The first word that is not an option, with its index; options before it are returned too. */
export function firstOperand(
  command: SimpleCommand,
  from = 1,
): { index: number; options: string[] } {
  const options: string[] = [];
  let i = from;
  while (
    i < command.argv.length &&
    !command.dynamic[i] &&
    (command.argv[i] ?? "").startsWith("-")
  ) {
    options.push(command.argv[i] ?? "");
    i += 1;
  }
  return { index: i, options };
}

/** For commands whose arguments are not files (echo, printf, tr): nothing to check. */
export function noPaths(): Verdict {
  return undefined;
}
