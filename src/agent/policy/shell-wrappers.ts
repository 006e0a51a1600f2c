/**
 * Commands that run another command: `timeout 60 npm test` runs `npm test`,
 * `find . -exec rm {} ;` runs `rm`. The policy checks the wrapped command as
 * well as the wrapper, so a wrapper cannot carry a denied command past it.
 */

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
  /** Options that take a separate value. */
  values: readonly string[];
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
  ["time", { values: ["-o", "--output", "-f", "--format"] }],
  ["command", { values: [], noCommandWith: ["-v", "-V"] }],
  ["builtin", { values: [] }],
  ["exec", { values: ["-a"] }],
  ["stdbuf", { values: ["-i", "-o", "-e"] }],
  ["sudo", { values: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R"] }],
  ["doas", { values: ["-u", "-C"] }],
  ["env", { values: ["-u", "--unset", "-C", "--chdir"], assignments: true }],
  [
    "xargs",
    {
      values: ["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter"],
      fallback: "echo",
      argsFromInput: true,
    },
  ],
]);

export function isWrapper(name: string): boolean {
  return WRAPPERS.has(name);
}

function wrapOne(
  name: string,
  spec: WrapperSpec,
  argv: string[],
  dynamic: boolean[],
): WrappedCommand | undefined {
  let i = 1;
  while (i < argv.length && !dynamic[i]) {
    const word = argv[i] ?? "";
    if (word === "--") {
      i += 1;
      break;
    }
    if (!word.startsWith("-") || word === "-") break;
    if (spec.noCommandWith?.includes(word)) return undefined;
    i += spec.values.includes(word) ? 2 : 1;
  }
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
    const token = name === "xargs" ? xargsReplaceToken(argv.slice(1, i)) : undefined;
    const wrapped = argv.slice(i);
    const marks = dynamic
      .slice(i)
      .map((d, j) => d || (!!token && (wrapped[j] ?? "").includes(token)));
    return { ...base, argv: wrapped, dynamic: marks };
  }
  return spec.fallback ? { ...base, argv: [spec.fallback], dynamic: [false] } : undefined;
}

/** The string `xargs -I` / `-i` / `--replace` substitutes input into, if one is set. */
function xargsReplaceToken(options: string[]): string | undefined {
  for (const [k, option] of options.entries()) {
    if (option === "-I") return options[k + 1];
    if (option === "-i" || option === "--replace") return "{}";
    if (/^-[Ii]./.test(option)) return option.slice(2);
    if (option.startsWith("--replace=")) return option.slice("--replace=".length);
  }
  return undefined;
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
