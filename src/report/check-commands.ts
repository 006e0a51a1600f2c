import { type CommandPart, splitShellCommand } from "./shell-split.js";

/**
 * Whether one simple command (its words, as shell-split.ts gives them) runs
 * a test runner, linter, type checker or build: `npm test`, `npx mocha`,
 * `cargo clippy`, `make`... A judgement on the words alone, so it errs
 * towards what the usual tools of each ecosystem look like.
 */
export function isCheckCommand(words: readonly string[]): boolean {
  return isCheck(words, 0);
}

/** Wrappers inside wrappers (`env timeout 60 npx …`) are followed this deep, no further. */
const MAX_DEPTH = 4;

function isCheck(words: readonly string[], depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  const [first = "", ...args] = withoutPrelude(words);
  const program = baseName(first);
  const next = (rest: readonly string[]) => isCheck(rest, depth + 1);
  if (WRAPPERS.has(program)) return wrappedCommands(args).some(next);
  if (SHELLS.has(program)) return shellScript(args).some((part) => next(part.words));
  if (PYTHONS.test(program)) return pythonCheck(args, next);
  if (program === "node") return nodeCheck(args);
  const manager = PACKAGE_MANAGERS.get(program);
  if (manager) return packageManagerCheck(program, manager, args, next);
  const wrapped = SUBCOMMAND_WRAPPERS.get(program);
  if (wrapped) return firstOperand(args) === wrapped && next(withoutFlags(args).slice(1));
  return toolCheck(program, args);
}

/**
 * Programs that run a command given after their own options: `env A=1 jest`,
 * `timeout -s KILL 60 npm test`, `npx -p typescript tsc`, `nyc mocha`.
 * Their options vary too much to parse, so a command starting at any of the
 * first few words after them counts.
 */
const WRAPPERS = new Set([
  ...["env", "time", "timeout", "command", "exec", "nohup", "nice", "stdbuf", "xvfb-run"],
  ...["npx", "pnpx", "bunx", "c8", "nyc", "dotenv", "cross-env"],
]);
const WRAPPER_OPTION_WORDS = 5;

function wrappedCommands(args: readonly string[]): string[][] {
  return args.slice(0, WRAPPER_OPTION_WORDS).map((_, at) => args.slice(at));
}

/** `bundle exec rspec`, `poetry run pytest`. */
const SUBCOMMAND_WRAPPERS = new Map([
  ["bundle", "exec"],
  ["poetry", "run"],
  ["uv", "run"],
  ["pipenv", "run"],
  ["hatch", "run"],
]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash"]);
const PYTHONS = /^(?:python(?:\d+(?:\.\d+)?)?|py)$/;

function shellScript(args: readonly string[]): CommandPart[] {
  const at = args.findIndex((arg) => /^-\w*c$/.test(arg));
  const script = at >= 0 ? args[at + 1] : undefined;
  return script === undefined ? [] : splitShellCommand(script);
}

/** Drops `A=1` assignments, `{` and `!` before the program. */
function withoutPrelude(words: readonly string[]): string[] {
  const at = words.findIndex((word) => !/^(?:[A-Za-z_]\w*=.*|[{!])$/.test(word));
  return at < 0 ? [] : words.slice(at);
}

function withoutFlags(words: readonly string[]): string[] {
  const at = words.findIndex((word) => !word.startsWith("-"));
  return at < 0 ? [] : withoutPrelude(words.slice(at));
}

function firstOperand(args: readonly string[]): string {
  return args.find((arg) => !arg.startsWith("-")) ?? "";
}

function baseName(path: string): string {
  return (path.split("/").at(-1) ?? "").replace(/\.[cm]?js$/, "");
}

/** Test, lint, type-check and build tools, whatever their arguments. */
const CHECK_TOOLS = new Set([
  // JavaScript and TypeScript
  ...["mocha", "jest", "vitest", "ava", "tap", "tape", "jasmine", "karma", "tsc", "vue-tsc"],
  ...["tsd", "eslint", "oxlint", "standard", "xo", "stylelint", "tslint", "jshint", "webpack"],
  ...["rollup", "esbuild", "tsup"],
  // Other languages and build systems
  ...["pytest", "py.test", "tox", "nox", "mypy", "pyright", "flake8", "pylint", "rspec"],
  ...["phpunit", "phpstan", "golangci-lint", "staticcheck", "shellcheck", "ctest", "ninja"],
]);

const GRADLE_TASKS = ["test", "check", "build", "assemble", "lint"];
const MAVEN_PHASES = ["test", "verify", "package", "compile", "install"];

/** Checks with one of these subcommands (their first argument that is not a flag). */
const CHECK_SUBCOMMANDS = new Map<string, readonly string[]>([
  ["biome", ["check", "lint", "ci"]],
  ["ruff", ["check"]],
  ["playwright", ["test"]],
  ["cypress", ["run"]],
  ["vite", ["build"]],
  ["go", ["test", "vet", "build"]],
  ["cargo", ["test", "build", "check", "clippy", "nextest"]],
  ["deno", ["test", "lint", "check"]],
  ["dotnet", ["test", "build"]],
  ["swift", ["test", "build"]],
  ["zig", ["build", "test"]],
  ["rake", ["test", "spec"]],
  ["mix", ["test", "compile", "credo"]],
  ["sbt", ["test", "compile"]],
  ["bazel", ["test", "build"]],
  ["gradle", GRADLE_TASKS],
  ["gradlew", GRADLE_TASKS],
  ["mvn", MAVEN_PHASES],
  ["mvnw", MAVEN_PHASES],
  ["composer", ["test", "lint", "check"]],
]);

/** Formatters are checks only when told to report instead of rewrite. */
const CHECK_FLAGS = new Map<string, readonly string[]>([
  ["prettier", ["--check", "-c", "--list-different", "-l"]],
  ["black", ["--check"]],
  ["isort", ["--check", "--check-only", "-c"]],
  ["ruff", ["--check"]],
  ["cargo", ["--check"]],
  ["gofmt", ["-l"]],
  ["rustfmt", ["--check"]],
]);

/** `make` and `make test` build; cleaning and installing do not check anything. */
const NOT_MAKE_CHECKS = new Set(["clean", "distclean", "install", "uninstall", "help"]);

function toolCheck(program: string, args: readonly string[]): boolean {
  if (CHECK_TOOLS.has(program)) return true;
  if (program === "make" || program === "gmake") return !NOT_MAKE_CHECKS.has(firstOperand(args));
  if (CHECK_SUBCOMMANDS.get(program)?.includes(firstOperand(args))) return true;
  const flags = CHECK_FLAGS.get(program);
  return flags !== undefined && args.some((arg) => flags.includes(arg));
}

type Next = (words: readonly string[]) => boolean;

/** `python -m pytest`, `python -m unittest`, `python manage.py test`, `python runtests.py`. */
function pythonCheck(args: readonly string[], next: Next): boolean {
  const at = args.indexOf("-m");
  const module = at >= 0 ? args[at + 1] : undefined;
  if (module === "unittest" || module === "compileall") return true;
  if (module !== undefined) return next(args.slice(at + 1));
  const [script = "", command] = args.filter((arg) => !arg.startsWith("-"));
  const name = baseName(script);
  return name === "runtests.py" || (name === "manage.py" && command === "test");
}

/** `node --test`, `node --check x.js`, `node node_modules/.bin/mocha`. */
function nodeCheck(args: readonly string[]): boolean {
  if (args.some((arg) => arg === "--test" || arg === "--check" || arg === "-c")) return true;
  const script = firstOperand(args);
  return script !== "" && toolCheck(baseName(script), []);
}

interface PackageManager {
  test: readonly string[];
  run: readonly string[];
  exec: readonly string[];
  /** pnpm, yarn and bun run a script named as their first argument; npm does not. */
  bareScripts: boolean;
}

const PACKAGE_MANAGERS = new Map<string, PackageManager>([
  [
    "npm",
    {
      test: ["test", "t", "tst"],
      run: ["run", "run-script"],
      exec: ["exec", "x"],
      bareScripts: false,
    },
  ],
  ["pnpm", { test: ["test", "t"], run: ["run"], exec: ["exec", "dlx"], bareScripts: true }],
  ["yarn", { test: ["test"], run: ["run"], exec: ["exec", "dlx"], bareScripts: true }],
  ["bun", { test: ["test"], run: ["run"], exec: ["x"], bareScripts: true }],
]);

/** Flags of package managers that take the next word as their value. */
const VALUE_FLAGS = new Set(["--filter", "-F", "-C", "--dir", "--prefix", "--workspace", "-w"]);

function packageManagerCheck(
  program: string,
  manager: PackageManager,
  args: readonly string[],
  next: Next,
): boolean {
  let at = 0;
  while ((args[at] ?? "").startsWith("-")) at += VALUE_FLAGS.has(args[at] ?? "") ? 2 : 1;
  if (program === "yarn" && args[at] === "workspace") at += 2;
  const command = args[at] ?? "";
  const rest = args.slice(at + 1);
  if (manager.test.includes(command)) return true;
  if (manager.exec.includes(command)) return next(withoutFlags(rest));
  if (manager.run.includes(command)) return isCheckScript(firstOperand(rest));
  return manager.bareScripts && isCheckScript(command);
}

/** Script names made of these words: `test`, `test:unit`, `lint:fix`, `type-check`, `build`... */
const CHECK_SCRIPT_WORDS = new Set([
  ...["test", "tests", "spec", "specs", "e2e", "unit", "integration", "coverage", "cover"],
  ...["lint", "eslint", "typecheck", "types", "tsc", "check", "checks", "build", "compile"],
  ...["verify", "validate"],
]);

function isCheckScript(name: string): boolean {
  return name.split(/[:_\-./]/).some((word) => CHECK_SCRIPT_WORDS.has(word.toLowerCase()));
}
