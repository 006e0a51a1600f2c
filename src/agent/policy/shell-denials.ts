import { programSource, SHELLS } from "./interpreters.js";
import { type CommandContext, checkPath, quote, type Verdict } from "./shell-args.js";
import type { SimpleCommand } from "./shell-command.js";
import { isWrapper, unwrapCommand, wrapperOptions } from "./shell-wrappers.js";

const NETWORK_TOOLS = new Set([
  "curl",
  "wget",
  "nc",
  "ncat",
  "netcat",
  "ssh",
  "scp",
  "sftp",
  "rsync",
  "telnet",
  "ftp",
  "socat",
  "aria2c",
  "http",
  "https",
  "ping",
  "dig",
  "nslookup",
]);

const PRIVILEGED = new Set(["sudo", "su", "doas", "pkexec", "runuser"]);

/** Declarations that print every variable when given no names. */
const DECLARING = new Set(["export", "declare", "typeset", "readonly", "local"]);

function environmentDump(command: SimpleCommand): boolean {
  const [name = "", ...args] = command.argv;
  if (name === "printenv") return true;
  if (name === "env") return unwrapCommand(command.argv, command.dynamic).length === 0;
  if (name === "set") return args.length === 0;
  if (DECLARING.has(name)) return args.every((arg) => arg.startsWith("-"));
  return false;
}

/**
 * Commands denied outright under the read-only and default presets, each
 * with the reason and what to do instead. Undefined: not one of these.
 */
export function explicitDenial(command: SimpleCommand): Verdict {
  const name = command.argv[0] ?? "";
  if (NETWORK_TOOLS.has(name)) {
    return `\`${name}\` is a network tool and is not allowed; work with files in the workspace`;
  }
  if (PRIVILEGED.has(name)) {
    return `\`${name}\` runs commands with other privileges and is not allowed; run the command directly, without ${name}`;
  }
  if (environmentDump(command)) {
    return `${quote(command)} prints environment variables, which is not allowed; the environment holds nothing the task needs`;
  }
  const options = wrapperOptions(command.argv, command.dynamic);
  if (name === "env" && options.some((o) => o.name === "-C" || o.name === "--chdir")) {
    return `${quote(command)}: \`env -C\` runs the command in another folder; \`cd\` into a workspace folder instead`;
  }
  return undefined;
}

/**
 * Wrappers whose wrapped command the analysis lists (and the policy checks)
 * separately, so the wrapper itself needs no verdict: `timeout 60 npm test`,
 * `xargs grep`, `env A=1 make`, `bash -c 'literal'`.
 */
export function isTransparentWrapper(command: SimpleCommand): boolean {
  const name = command.argv[0] ?? "";
  if (PRIVILEGED.has(name)) return false;
  if (isWrapper(name)) return true;
  const source = SHELLS.has(name) ? programSource(command.argv) : undefined;
  return source?.kind === "inline" && !command.dynamic[source.index];
}

/** A wrapper's own file options (`xargs -a list`, `time -o out`), checked like any other path. */
export function wrapperFileDenial(command: SimpleCommand, ctx: CommandContext): Verdict {
  for (const option of wrapperOptions(command.argv, command.dynamic)) {
    if (!option.file) continue;
    const verdict = checkPath(command, option.value ?? "", option.dynamic, option.file, ctx);
    if (verdict) return verdict;
  }
  return undefined;
}
