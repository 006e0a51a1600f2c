import { programSource } from "./interpreters.js";
import {
  type ArgumentSpec,
  type CommandContext,
  checkArguments,
  firstOperand,
  quote,
  readArguments,
  type Verdict,
} from "./shell-args.js";
import type { SimpleCommand } from "./shell-command.js";
import { PACKAGE_COMMANDS } from "./shell-packages.js";
import type { CommandCheck } from "./shell-read.js";

function checkNode(command: SimpleCommand, ctx: CommandContext): Verdict {
  const source = programSource(command.argv);
  if (source?.kind === "inline") {
    return `${quote(command)} runs inline code, which is not allowed; write the script to a file in the workspace and run \`node <file>\``;
  }
  if (source?.kind === "stdin") {
    const informational = command.argv.some((arg) =>
      /^(--test|--check|-c|--version|-v|--help|-h)$/.test(arg),
    );
    if (!informational) {
      return `${quote(command)} reads code from input; write the script to a file in the workspace and run \`node <file>\``;
    }
  }
  return checkArguments(command, ctx, "read", NODE_LOADING) ?? loadedUrlDenial(command);
}

/** Options that make node load more code before the script; their values are files or modules. */
const NODE_LOADING: ArgumentSpec = {
  pathValues: Object.fromEntries(
    ["-r", "--require", "--import", "--loader", "--experimental-loader"].map(
      (option) => [option, "read"] as const,
    ),
  ),
};

/** `--import=data:text/javascript,...` is inline code again, and other URLs are not files here. */
function loadedUrlDenial(command: SimpleCommand): Verdict {
  const url = readArguments(command, NODE_LOADING).values.find(
    (value) =>
      value.declared && /^[a-z][a-z0-9+.-]+:/i.test(value.text) && !value.text.startsWith("node:"),
  );
  return url
    ? `${quote(command)}: \`${url.option} ${url.text.slice(0, 30)}\` loads inline code from a URL, which is not allowed; write the code to a file in the workspace and load that`
    : undefined;
}

const PYTHON_MODULES = new Set(["pytest", "mypy", "ruff", "unittest"]);

function checkPython(command: SimpleCommand, ctx: CommandContext): Verdict {
  const source = programSource(command.argv);
  const module = source?.kind === "module" ? command.argv[source.index] : undefined;
  if (!module || !PYTHON_MODULES.has(module)) {
    return `${quote(command)}: only \`python -m pytest\` (or mypy, ruff, unittest) is allowed; run the tests that way`;
  }
  return checkArguments(command, ctx, "read");
}

/** `cargo build`, `go test`: the tool with one of a few subcommands. */
const withSubcommands =
  (tool: string, allowed: readonly string[], network: readonly string[]): CommandCheck =>
  (command, ctx) => {
    const start = tool === "cargo" && command.argv[1]?.startsWith("+") ? 2 : 1;
    const { index } = firstOperand(command, start);
    const sub = command.argv[index] ?? "";
    if (!command.dynamic[index] && allowed.includes(sub)) {
      return checkArguments(command, ctx, "write", {
        pathValues: { "-o": "write", "--manifest-path": "read", "--target-dir": "write" },
      });
    }
    if (network.includes(sub)) {
      return `${quote(command)}: \`${tool} ${sub}\` needs the network and is not allowed; dependencies are installed before the agent runs`;
    }
    return `${quote(command)}: only \`${tool} ${allowed.join("|")}\` is allowed; use one of those`;
  };

const tool: CommandCheck = (command, ctx) => checkArguments(command, ctx, "write");

const MAKE: ArgumentSpec = {
  values: ["-j", "--jobs", "-l", "-E", "--eval"],
  pathValues: {
    "-C": "read",
    "--directory": "read",
    "-f": "read",
    "--file": "read",
    "--makefile": "read",
    "-I": "read",
    "--include-dir": "read",
  },
};

function checkMake(command: SimpleCommand, ctx: CommandContext): Verdict {
  const evaluated = readArguments(command, MAKE).values.find(
    (value) => value.option === "-E" || value.option === "--eval",
  );
  if (evaluated) {
    return `${quote(command)}: \`${evaluated.option}\` runs make code given on the command line, which is not allowed; put it in a Makefile in the workspace and run that target`;
  }
  return checkArguments(command, ctx, "read", MAKE);
}

/** Build, test and lint commands (default preset). */
export const BUILD_COMMANDS: ReadonlyMap<string, CommandCheck> = new Map<string, CommandCheck>([
  ...PACKAGE_COMMANDS,
  ["node", checkNode],
  ["python", checkPython],
  ["python3", checkPython],
  ["make", checkMake],
  [
    "cargo",
    withSubcommands(
      "cargo",
      ["build", "b", "test", "t", "check", "c", "clippy", "fmt"],
      ["install", "fetch", "add", "update", "publish", "search"],
    ),
  ],
  [
    "go",
    withSubcommands("go", ["build", "test", "vet", "fmt"], ["get", "install", "mod", "download"]),
  ],
  ...[
    "tsc",
    "vitest",
    "jest",
    "eslint",
    "prettier",
    "biome",
    "pytest",
    "ruff",
    "mypy",
    "gofmt",
  ].map((name) => [name, tool] as const),
]);
