import type { SimpleCommand } from "./shell-analysis.js";
import {
  type ArgumentSpec,
  type CommandContext,
  checkArguments,
  type PathMode,
  quote,
  readArguments,
  type Verdict,
} from "./shell-args.js";
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

function checkSed(command: SimpleCommand, ctx: CommandContext): Verdict {
  const options: ArgumentSpec = {
    values: ["-e", "--expression", "-l", "--line-length"],
    pathValues: { "-f": "read", "--file": "read" },
  };
  const spec = { ...options, firstOperandUnless: ["-e", "--expression", "-f", "--file"] };
  const { operands, values } = readArguments(command, options);
  const scripts = values.some(
    (v) =>
      v.option === "-e" ||
      v.option === "--expression" ||
      v.option === "-f" ||
      v.option === "--file",
  )
    ? values.filter((v) => v.option === "-e" || v.option === "--expression")
    : operands.slice(0, 1);
  const sandboxed = command.argv.includes("--sandbox");
  if (!sandboxed && scripts.some((script) => script.dynamic || sedScriptProblem(script.text))) {
    return `${quote(command)}: the sed script uses e, w or r commands (or is built from an expansion), which run programs or touch unchecked files; use edit_file, or plain substitutions`;
  }
  const inPlace = command.argv.some(
    (arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith("--in-place"),
  );
  return checkArguments(command, ctx, inPlace ? "write" : "read", spec);
}

/** awk programs can run commands, write files and read the environment; those programs are denied. */
function awkProgramProblem(program: string): boolean {
  const withoutOr = program.replaceAll("||", " ");
  return (
    /\bsystem\s*\(|\bgetline\b|\bENVIRON\b|\|/.test(withoutOr) ||
    /\bprintf?\b[^;}\n]*>/.test(program)
  );
}

function checkAwk(command: SimpleCommand, ctx: CommandContext): Verdict {
  const options: ArgumentSpec = {
    values: ["-v", "--assign", "-F", "--field-separator"],
    pathValues: { "-f": "read", "--file": "read" },
  };
  const spec = { ...options, firstOperandUnless: ["-f", "--file"] };
  const fromFile = command.argv.some((arg) => arg === "-f" || arg.startsWith("--file"));
  const program = fromFile ? undefined : readArguments(command, options).operands[0];
  if (program && (program.dynamic || awkProgramProblem(program.text))) {
    return `${quote(command)}: the awk program runs commands, redirects output or reads the environment; use awk only to read and print, or edit files with edit_file`;
  }
  return checkArguments(command, ctx, "read", spec);
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
