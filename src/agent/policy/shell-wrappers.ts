/**
 * Commands that run another command: `timeout 60 npm test` runs `npm test`,
 * `find . -exec rm {} ;` runs `rm`. The policy checks the wrapped command as
 * well as the wrapper, so a wrapper cannot carry a denied command past it.
 */

import type { PathMode } from "./shell-args.js";
import { splitOption } from "./shell-options.js";

export interface WrappedCommand {
  argv: string[];
  dynamic: boolean[];
  /** The wrapper, e.g. `xargs` or `find -exec`. */
  via: string;
  /** True for xargs: more arguments are appended from standard input. */
  argsFromInput: boolean;
  /** `NAME=value` words the wrapper sets for the command (`env A=1 cmd`). */
  assignments: string[];
}

interface WrapperSpec {
  /** Options that take a value (separate or glued). */
  values: readonly string[];
  /** Options whose value, if any, is glued to them (`xargs -i{}`). */
  optional?: readonly string[];
  /** Options whose value is a file the wrapper itself opens (`xargs -a`, `time -o`). */
  files?: Readonly<Record<string, PathMode>>;
  /** Positional words before the command (timeout's duration). */
  positional?: number;
  /** What runs when no command is given (xargs runs echo). */
  fallback?: string;
  argsFromInput?: boolean;
  /** Collects `NAME=value` words after the options (env). */
  assignments?: boolean;
  /** Options after which no command runs (`command -v`). */
  noCommandWith?: readonly string[];
}

const WRAPPERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  ["timeout", { values: ["-s", "--signal", "-k", "--kill-after"], positional: 1 }],
  ["nice", { values: ["-n", "--adjustment"] }],
  ["nohup", { values: [] }],
  ["time", { values: ["-f", "--format"], files: { "-o": "write", "--output": "write" } }],
  ["command", { values: [], noCommandWith: ["-v", "-V"] }],
  ["builtin", { values: [] }],
  ["exec", { values: ["-a"] }],
  ["stdbuf", { values: ["-i", "-o", "-e"] }],
  ["sudo", { values: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R"] }],
  ["doas", { values: ["-u", "-C"] }],
  [
    "env",
    {
      values: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
      assignments: true,
    },
  ],
  [
    "xargs",
    {
      values: ["-d", "-E", "-I", "-L", "-n", "-P", "-s", "--delimiter"],
      optional: ["-i", "-e", "-l"],
      files: { "-a": "read", "--arg-file": "read" },
      fallback: "echo",
      argsFromInput: true,
    },
  ],
]);

export function isWrapper(name: string): boolean {
  return WRAPPERS.has(name);
}

/** One of a wrapper's own options, with its value when it takes one. */
interface WrapperOption {
  name: string;
  value: string | undefined;
  dynamic: boolean;
  /** Set when the value is a file the wrapper opens. */
  file: PathMode | undefined;
}

interface NextWord {
  text: string | undefined;
  dynamic: boolean;
}

/** Reads one option word; `next` consumes the following word when the option's value is there. */
function readOption(spec: WrapperSpec, word: string, next: () => NextWord): WrapperOption {
  const optional = spec.optional?.find((name) => word.startsWith(name));
  if (optional) {
    const rest = word.slice(optional.length);
    return { name: optional, value: rest || undefined, dynamic: false, file: undefined };
  }
  const option = splitOption(word, new Set([...spec.values, ...Object.keys(spec.files ?? {})]));
  const file = spec.files?.[option.name];
  if (option.glued !== undefined || !option.takesValue) {
    return { name: option.name, value: option.glued, dynamic: false, file };
  }
  const value = next();
  return { name: option.name, value: value.text, dynamic: value.dynamic, file };
}

/** The wrapper's options and the index of the first word after them. */
function readOptions(
  spec: WrapperSpec,
  argv: readonly string[],
  dynamic: readonly boolean[],
): { options: WrapperOption[]; end: number } {
  const options: WrapperOption[] = [];
  let i = 1;
  while (i < argv.length && !dynamic[i]) {
    const word = argv[i] ?? "";
    if (word === "--") return { options, end: i + 1 };
    if (!word.startsWith("-") || word === "-") break;
    options.push(
      readOption(spec, word, () => {
        i += 1;
        return { text: argv[i], dynamic: dynamic[i] ?? false };
      }),
    );
    i += 1;
  }
  return { options, end: i };
}

/** The options of a wrapper command (`env -C dir`, `xargs -a file`); empty for anything else. */
export function wrapperOptions(
  argv: readonly string[],
  dynamic: readonly boolean[],
): WrapperOption[] {
  const spec = WRAPPERS.get(argv[0] ?? "");
  return spec && !dynamic[0] ? readOptions(spec, argv, dynamic).options : [];
}

function wrapOne(
  name: string,
  spec: WrapperSpec,
  argv: string[],
  dynamic: boolean[],
): WrappedCommand | undefined {
  const { options, end } = readOptions(spec, argv, dynamic);
  if (options.some((option) => spec.noCommandWith?.includes(option.name))) return undefined;
  let i = end;
  const assignments: string[] = [];
  if (spec.assignments) {
    while (i < argv.length && !dynamic[i] && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i] ?? "")) {
      assignments.push(argv[i] ?? "");
      i += 1;
    }
  }
  i += spec.positional ?? 0;
  const base = {
    via: name,
    argsFromInput: spec.argsFromInput ?? false,
    assignments,
  };
  if (i < argv.length) {
    // `xargs -I{} cmd {}` puts input text into the words holding the replace string.
    const token = name === "xargs" ? xargsReplaceToken(options) : undefined;
    const wrapped = argv.slice(i);
    const marks = dynamic
      .slice(i)
      .map((d, j) => d || (!!token && (wrapped[j] ?? "").includes(token)));
    return { ...base, argv: wrapped, dynamic: marks };
  }
  return spec.fallback ? { ...base, argv: [spec.fallback], dynamic: [false] } : undefined;
}

/** The string `xargs -I` / `-i` / `--replace` substitutes input into, if one is set. */
function xargsReplaceToken(options: readonly WrapperOption[]): string | undefined {
  const replace = options.find((o) => ["-I", "-i", "--replace"].includes(o.name));
  if (!replace) return undefined;
  return replace.value ?? (replace.name === "-I" ? undefined : "{}");
}

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** Every `-exec ... ;` / `-exec ... +` block of a find command. */
function findExecs(argv: string[], dynamic: boolean[]): WrappedCommand[] {
  const found: WrappedCommand[] = [];
  for (let i = 1; i < argv.length; i += 1) {
    const action = argv[i] ?? "";
    if (dynamic[i] || !FIND_EXEC.has(action)) continue;
    let end = i + 1;
    while (end < argv.length && !(argv[end] === ";" || argv[end] === "+")) end += 1;
    if (end > i + 1) {
      found.push({
        argv: argv.slice(i + 1, end),
        dynamic: dynamic.slice(i + 1, end),
        via: `find ${action}`,
        argsFromInput: false,
        assignments: [],
      });
    }
    i = end;
  }
  return found;
}

/** The commands `argv` runs on its behalf (empty when it is not a wrapper). */
export function unwrapCommand(argv: string[], dynamic: boolean[]): WrappedCommand[] {
  const name = argv[0] ?? "";
  if (dynamic[0]) return [];
  if (name === "find") return findExecs(argv, dynamic);
  const spec = WRAPPERS.get(name);
  if (!spec) return [];
  const wrapped = wrapOne(name, spec, argv, dynamic);
  return wrapped ? [wrapped] : [];
}
