/**
 * Where a shell or script interpreter takes its program from. Used to spot
 * text piped into an interpreter, inline code built from expansions, and
 * `bash -c 'literal'` whose literal we parse and check as well.
 */

import type { SimpleCommand } from "./shell-command.js";

export type ProgramSource =
  | { kind: "stdin" }
  | { kind: "inline"; index: number }
  | { kind: "file"; index: number }
  | { kind: "module"; index: number };

interface InterpreterSpec {
  /** Options whose value is the program text. */
  inline: readonly string[];
  /** Options whose value names a module to run (`python -m pytest`). */
  module: readonly string[];
  /** Other options that take a separate value (so the value is not mistaken for a script). */
  values: readonly string[];
  /** Short option letters that may be clustered, with the program-text one among them. */
  clusterInline?: string;
  clusterModule?: string;
  /** Short option letter that makes the program come from standard input (`bash -s`). */
  clusterStdin?: string;
}

const SHELL: InterpreterSpec = {
  inline: ["-c"],
  module: [],
  values: ["-o", "+o", "-O", "+O", "--rcfile", "--init-file"],
  clusterInline: "c",
  clusterStdin: "s",
};

const PYTHON: InterpreterSpec = {
  inline: ["-c"],
  module: ["-m"],
  values: ["-W", "-X", "-Q"],
  clusterInline: "c",
  clusterModule: "m",
};

const NODE: InterpreterSpec = {
  inline: ["-e", "--eval", "-p", "--print"],
  module: [],
  values: [
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "-C",
    "--conditions",
    "--input-type",
    "--env-file",
    "--title",
    "--stack-size",
  ],
};

const SCRIPTING: InterpreterSpec = {
  inline: ["-e", "-E", "-r"],
  module: [],
  values: ["-I"],
  clusterInline: "eE",
};

export const SHELLS: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "ash",
]);

const INTERPRETERS: ReadonlyMap<string, InterpreterSpec> = new Map<string, InterpreterSpec>([
  ...[...SHELLS].map((name) => [name, SHELL] as const),
  ...["python", "python2", "python3", "pypy", "pypy3"].map((name) => [name, PYTHON] as const),
  ...["node", "nodejs", "bun", "deno"].map((name) => [name, NODE] as const),
  ...["perl", "ruby", "php", "lua", "luajit"].map((name) => [name, SCRIPTING] as const),
]);

/** Strips a directory and a version suffix: `/usr/bin/python3.12` -> `python3`. */
export function interpreterName(command: string): string {
  const base = command.slice(command.lastIndexOf("/") + 1);
  return base.replace(/^(python[23]?)\.\d+$/, "$1");
}

export function isInterpreter(command: string): boolean {
  return INTERPRETERS.has(interpreterName(command));
}

/**
 * Where `argv` (an interpreter invocation) reads its program from, or
 * `undefined` when argv[0] is not an interpreter we know.
 */
export function programSource(argv: readonly string[]): ProgramSource | undefined {
  const spec = INTERPRETERS.get(interpreterName(argv[0] ?? ""));
  if (!spec) return undefined;
  let i = 1;
  let pending: "inline" | "module" | undefined;
  while (i < argv.length) {
    const word = argv[i] ?? "";
    if (pending) return { kind: pending, index: i };
    if (word === "--") {
      i += 1;
      break;
    }
    if (word === "-") return { kind: "stdin" };
    if (spec.inline.includes(word)) pending = "inline";
    else if (spec.module.includes(word)) pending = "module";
    else if (spec.inline.some((option) => word.startsWith(`${option}=`))) {
      return { kind: "inline", index: i };
    } else if (spec.values.includes(word)) i += 1;
    else if (/^-[A-Za-z]+$/.test(word)) {
      const letters = word.slice(1);
      if (spec.clusterInline && [...letters].some((l) => spec.clusterInline?.includes(l))) {
        pending = "inline";
      } else if (spec.clusterModule && letters.includes(spec.clusterModule)) pending = "module";
      else if (spec.clusterStdin && letters.includes(spec.clusterStdin)) return { kind: "stdin" };
    } else if (!word.startsWith("-") && !word.startsWith("+")) {
      return { kind: "file", index: i };
    }
    i += 1;
  }
  // `xargs sh -c` gets its program from input: past the end of what the command line shows.
  if (pending === "inline") return { kind: "inline", index: argv.length };
  if (pending) return { kind: "stdin" };
  return i < argv.length ? { kind: "file", index: i } : { kind: "stdin" };
}

/**
 * What an interpreter's inline program (`-c`, `-e`) means for the analysis:
 * a shell literal to parse, code the policy cannot read (opaque for shells,
 * whose code the policy otherwise reads; a plain hazard for other
 * interpreters, whose code it never reads), or undefined when there is none.
 */
type InlineProgram =
  | { kind: "shell"; program: string }
  | { kind: "opaque" | "hidden"; hazard: string };

export function inlineProgram(command: SimpleCommand): InlineProgram | undefined {
  const name = command.argv[0] ?? "";
  if (command.dynamic[0] || !isInterpreter(name)) return undefined;
  const source = programSource(command.argv);
  if (source?.kind !== "inline") return undefined;
  const shell = SHELLS.has(name.slice(name.lastIndexOf("/") + 1));
  const kind = shell ? "opaque" : "hidden";
  const program = command.argv[source.index];
  if (program === undefined) {
    return command.argsFromInput
      ? {
          kind,
          hazard: `\`${name}\` through xargs runs code read from input, so the policy cannot see what runs; write the command out literally`,
        }
      : undefined;
  }
  if (command.dynamic[source.index]) {
    return {
      kind,
      hazard: `\`${name}\` runs code built from an expansion (${program}), so the policy cannot see what runs; write the command out literally`,
    };
  }
  if (command.via?.startsWith("find") && program.includes("{}")) {
    // find pastes each file name into the code, so the code the shell runs depends on file names.
    return {
      kind,
      hazard: `\`${name}\` code containing {} under \`${command.via}\` runs text built from file names; pass the names as arguments ("$@") instead`,
    };
  }
  return shell ? { kind: "shell", program } : undefined;
}
