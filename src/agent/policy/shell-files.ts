import { join } from "node:path";
import { resolveInWorkspace } from "./paths.js";
import {
  type Argument,
  type ArgumentSpec,
  type CommandContext,
  checkArguments,
  type PathMode,
  quote,
  readArguments,
  type Verdict,
} from "./shell-args.js";
import type { SimpleCommand } from "./shell-command.js";
import type { CommandCheck } from "./shell-read.js";

const files =
  (mode: PathMode, spec: ArgumentSpec = {}): CommandCheck =>
  (command, ctx) =>
    checkArguments(command, ctx, mode, spec);

/**
 * sed commands that run programs or touch files the policy has not checked:
 * `e`, `w`/`W`, `r`/`R`, and the `e`/`w` flags of `s`. A heuristic over the
 * script text; `--sandbox` makes GNU sed refuse them itself.
 */
function sedScriptProblem(script: string): boolean {
  const address = String.raw`(?:\d+|\$|/(?:[^/\\]|\\.)*/[IM]*)(?:\s*,\s*(?:\d+|\$|/(?:[^/\\]|\\.)*/[IM]*|[+~]\d+))?`;
  const commands = script.split(/[;\n]|(?<!\\)[{}]/);
  return commands.some((part) => {
    const body = part.replace(new RegExp(`^\\s*(?:${address})?\\s*!?\\s*`), "");
    if (/^[eEwWrR]/.test(body)) return true;
    const substitution = /^s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1([a-zA-Z0-9]*)/.exec(
      body,
    );
    return substitution !== null && /[ew]/.test(substitution[2] ?? "");
  });
}

const SED: ArgumentSpec = {
  values: ["-e", "--expression", "-l", "--line-length"],
  pathValues: { "-f": "read", "--file": "read" },
};
const SED_SCRIPT_OPTIONS = ["-e", "--expression", "-f", "--file"];

/**
 * A program file (`sed -f p`, `awk -f p`) is checked like an inline program:
 * its text, read through the policy's view of the disk. Undefined when it
 * passes (or lies outside the workspace, which the path check reports).
 */
function programFileDenial(
  command: SimpleCommand,
  file: Argument,
  ctx: CommandContext,
  problem: (program: string) => string | undefined,
): Verdict {
  if (file.dynamic) return undefined;
  const resolved = resolveInWorkspace(file.text, ctx.root, ctx.fs);
  if (!resolved.inside) return undefined;
  if (ctx.writtenInCall.has(resolved.relative)) {
    return `${quote(command)}: the program file \`${file.text}\` is written by this same command, so the policy cannot check what it will hold; write it first (write_file), then run it`;
  }
  const text = ctx.fs?.readText(join(ctx.root, resolved.relative));
  if (text === undefined) {
    return `${quote(command)}: the program file \`${file.text}\` cannot be read, so the policy cannot check what it does; write it first (write_file), or give the program inline`;
  }
  const found = problem(text);
  return found
    ? `${quote(command)}: the program in \`${file.text}\` ${found}; use it only to read and print, or edit files with edit_file`
    : undefined;
}

const SED_PROBLEM = "uses e, w or r commands, which run programs or touch unchecked files";

function checkSed(command: SimpleCommand, ctx: CommandContext): Verdict {
  const { operands, values } = readArguments(command, SED);
  const scripts = values.some((v) => v.option && SED_SCRIPT_OPTIONS.includes(v.option))
    ? values.filter((v) => v.option === "-e" || v.option === "--expression")
    : operands.slice(0, 1);
  const sandboxed = command.argv.includes("--sandbox");
  if (!sandboxed && scripts.some((script) => script.dynamic || sedScriptProblem(script.text))) {
    return `${quote(command)}: the sed script uses e, w or r commands (or is built from an expansion), which run programs or touch unchecked files; use edit_file, or plain substitutions`;
  }
  for (const file of sandboxed
    ? []
    : values.filter((v) => v.option === "-f" || v.option === "--file")) {
    const verdict = programFileDenial(command, file, ctx, (text) =>
      sedScriptProblem(text) ? SED_PROBLEM : undefined,
    );
    if (verdict) return verdict;
  }
  const inPlace = command.argv.some(
    (arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith("--in-place"),
  );
  return checkArguments(command, ctx, inPlace ? "write" : "read", {
    ...SED,
    firstOperandUnless: SED_SCRIPT_OPTIONS,
  });
}

/** What an awk program may not do, each with what the denial says about it. */
const AWK_PROBLEMS: readonly [RegExp, string][] = [
  [/\bsystem\s*\(|\|/, "runs commands (system() or a pipe)"],
  [/\bgetline\b/, "reads input the policy cannot see (getline)"],
  [/\bENVIRON\b/, "reads the environment (ENVIRON)"],
  [/\bprintf?\b[^;}\n]*>/, "redirects output into a file"],
  [/\b(ARGV|ARGC)\b/, "changes which files it reads (ARGV, ARGC)"],
  [/@(include|load)\b/, "loads more source or compiled code (@include, @load)"],
];

function awkProgramProblem(program: string): string | undefined {
  // `||` is logical or, not a pipe.
  const withoutOr = program.replaceAll("||", " ");
  return AWK_PROBLEMS.find(([pattern]) => pattern.test(withoutOr))?.[1];
}

/** gawk's `-i` / `-l` load source and compiled extensions, `-E` is a program file like `-f`. */
const AWK: ArgumentSpec = {
  values: ["-v", "--assign", "-F", "--field-separator"],
  pathValues: {
    "-f": "read",
    "--file": "read",
    "-E": "read",
    "--exec": "read",
    "-i": "read",
    "--include": "read",
    "-l": "read",
    "--load": "read",
  },
};
const AWK_PROGRAM_FILES = ["-f", "--file", "-E", "--exec"];
const AWK_SOURCES = [...AWK_PROGRAM_FILES, "-i", "--include"];

function checkAwk(command: SimpleCommand, ctx: CommandContext): Verdict {
  const { operands, values } = readArguments(command, AWK);
  const fromFile = values.some((v) => v.option && AWK_PROGRAM_FILES.includes(v.option));
  const program = fromFile ? undefined : operands[0];
  const problem = program?.dynamic
    ? "is built from an expansion"
    : awkProgramProblem(program?.text ?? "");
  if (problem) {
    return `${quote(command)}: the awk program ${problem}; use awk only to read and print, or edit files with edit_file`;
  }
  // `gawk -i inplace` rewrites the files it reads.
  const isInplace = (v: Argument) =>
    (v.option === "-i" || v.option === "--include") && /^inplace(\.awk)?$/.test(v.text);
  const inPlace = values.some(isInplace);
  // Program files and included source are awk code like the inline program.
  for (const file of values.filter((v) => AWK_SOURCES.includes(v.option ?? "") && !isInplace(v))) {
    const verdict = programFileDenial(command, file, ctx, awkProgramProblem);
    if (verdict) return verdict;
  }
  return checkArguments(command, ctx, inPlace ? "write" : "read", {
    ...AWK,
    firstOperandUnless: AWK_PROGRAM_FILES,
  });
}

/** Commands that change files in the workspace (default preset). */
export const FILE_COMMANDS: ReadonlyMap<string, CommandCheck> = new Map<string, CommandCheck>([
  ["mkdir", files("write", { values: ["-m", "--mode"] })],
  [
    "touch",
    files("write", {
      values: ["-d", "--date", "-t"],
      pathValues: { "-r": "read", "--reference": "read" },
    }),
  ],
  [
    "cp",
    files("write", {
      values: ["-S", "--suffix"],
      pathValues: { "-t": "write", "--target-directory": "write" },
    }),
  ],
  [
    "mv",
    files("destroy", {
      values: ["-S", "--suffix"],
      pathValues: { "-t": "destroy", "--target-directory": "destroy" },
    }),
  ],
  ["rm", files("destroy")],
  ["rmdir", files("destroy")],
  [
    "chmod",
    files("destroy", {
      firstOperandUnless: ["--reference"],
      pathValues: { "--reference": "read" },
    }),
  ],
  [
    "chown",
    files("destroy", {
      firstOperandUnless: ["--reference"],
      pathValues: { "--reference": "read" },
    }),
  ],
  ["tee", files("write")],
  ["sed", checkSed],
  ["awk", checkAwk],
  ["gawk", checkAwk],
  ["mawk", checkAwk],
  [
    "patch",
    files("write", {
      values: ["-p", "--strip", "-F", "--fuzz", "-V", "-z", "--suffix"],
      pathValues: {
        "-i": "read",
        "--input": "read",
        "-o": "write",
        "--output": "write",
        "-d": "read",
        "--directory": "read",
        "-r": "write",
        "--reject-file": "write",
      },
    }),
  ],
]);

/** Commands whose operands the trusted preset still checks for writes into .git/. */
export const WRITING_COMMANDS: ReadonlySet<string> = new Set([
  ...FILE_COMMANDS.keys(),
  "ln",
  "truncate",
  "install",
  "dd",
  "unlink",
  "chgrp",
  "rsync",
]);
