import path from "node:path";
import {
  type CommandContext,
  checkArguments,
  firstOperand,
  quote,
  type Verdict,
} from "./shell-args.js";
import type { SimpleCommand } from "./shell-command.js";
import type { CommandCheck } from "./shell-read.js";

/** Tools npx may run even when node_modules/.bin is not there (yet). */
const NPX_TOOLS = new Set(["tsc", "vitest", "jest", "eslint", "prettier", "biome"]);

const INSTALLING = new Set([
  "ci",
  "install",
  "i",
  "in",
  "ins",
  "isntall",
  "add",
  "install-test",
  "it",
  "install-ci-test",
  "cit",
  "clean-install",
  "update",
  "up",
  "upgrade",
  "uninstall",
  "remove",
  "rm",
  "r",
  "un",
  "unlink",
  "link",
  "ln",
  "dedupe",
  "ddp",
  "prune",
  "rebuild",
  "rb",
  "dlx",
  "fetch",
  "import",
]);

/** Package-manager options that point it at another folder, registry, shell or config. */
const NPM_REDIRECTING =
  /^(--prefix|-C|--dir|--cwd|--workspace|-w|--workspaces|-ws|--global|-g|--location|--userconfig|--globalconfig|--registry|--script-shell|--node-options|--call|-c)(=|$)/;

const installDenial = (tool: string, sub: string): string =>
  `\`${tool} ${sub}\` installs packages from the network and is not allowed; dependencies are installed before the agent runs, so run the tests or the build instead`;

function redirectingOption(command: SimpleCommand, tool: string): Verdict {
  const end = command.argv.indexOf("--");
  const own = end < 0 ? command.argv : command.argv.slice(0, end);
  const option = own.find((arg) => NPM_REDIRECTING.test(arg));
  return option
    ? `${quote(command)}: \`${tool} ${option}\` points it at another folder, registry or shell; run it from the workspace root without that option`
    : undefined;
}

function scriptDenial(command: SimpleCommand, index: number, ctx: CommandContext): Verdict {
  const script = command.argv[index];
  if (script === undefined) return undefined;
  if (command.dynamic[index]) {
    return `${quote(command)}: the script name comes from an expansion; write it out`;
  }
  if (ctx.packageScripts.includes(script)) return undefined;
  const known = ctx.packageScripts.length > 0 ? ctx.packageScripts.join(", ") : "none";
  return `${quote(command)}: no such script in package.json (scripts: ${known})`;
}

function npmDenial(command: SimpleCommand, ctx: CommandContext): Verdict {
  const redirect = redirectingOption(command, "npm");
  if (redirect) return redirect;
  const { index } = firstOperand(command);
  const sub = command.argv[index];
  if (sub === undefined) return undefined;
  if (command.dynamic[index])
    return `${quote(command)}: the npm command comes from an expansion; write it out`;
  if (["test", "t", "tst", "ls", "list", "ll", "la", "help"].includes(sub)) return undefined;
  if (["run", "run-script", "rum", "urn"].includes(sub)) {
    return scriptDenial(command, firstOperand(command, index + 1).index, ctx);
  }
  if (["start", "stop", "restart"].includes(sub)) return scriptDenial(command, index, ctx);
  if (INSTALLING.has(sub)) return installDenial("npm", sub);
  if (sub === "exec" || sub === "x") return npxDenial(commandFrom(command, index), ctx);
  return `${quote(command)}: \`npm ${sub}\` is not allowed; use \`npm test\` or \`npm run <script>\``;
}

/** Subcommands that only read the installed tree or the lockfile. */
const READING = {
  pnpm: ["ls", "list", "ll", "la", "why", "help"],
  yarn: ["why", "help"],
};

/** yarn and pnpm run a package.json script given as the subcommand (`yarn test`). */
const scriptRunnerDenial =
  (tool: "yarn" | "pnpm"): CommandCheck =>
  (command, ctx) => {
    const redirect = redirectingOption(command, tool);
    if (redirect) return redirect;
    const { index, options } = firstOperand(command);
    const sub = command.argv[index];
    if (sub === undefined) {
      const informational = options.some((o) => ["-v", "--version", "-h", "--help"].includes(o));
      return tool === "yarn" && !informational ? installDenial(tool, "install") : undefined;
    }
    if (command.dynamic[index])
      return `${quote(command)}: the ${tool} command comes from an expansion; write it out`;
    if (INSTALLING.has(sub)) return installDenial(tool, sub);
    if (
      [
        "exec",
        "x",
        "npx",
        "dlx",
        "create",
        "global",
        "publish",
        "config",
        "set",
        "plugin",
      ].includes(sub)
    ) {
      return `${quote(command)}: \`${tool} ${sub}\` is not allowed; run a script from package.json instead`;
    }
    if (sub === "run" || sub === "run-script") {
      return scriptDenial(command, firstOperand(command, index + 1).index, ctx);
    }
    if (tool === "pnpm" && ["test", "t", "tst"].includes(sub)) return undefined;
    // Why a package is at the version it is, from the installed tree and the
    // lockfile (npm's `ls` is allowed the same way): what an agent fixing a
    // dependency bump asks first. These built-ins win over a script's name.
    if (READING[tool].includes(sub)) return undefined;
    return scriptDenial(command, index, ctx);
  };

function commandFrom(command: SimpleCommand, index: number): SimpleCommand {
  const argv = ["npx", ...command.argv.slice(index + 1)];
  return {
    ...command,
    argv,
    dynamic: [false, ...command.dynamic.slice(index + 1)],
    text: argv.join(" "),
  };
}

function npxDenial(command: SimpleCommand, ctx: CommandContext): Verdict {
  const { index, options } = firstOperand(command);
  const downloading = options.find((o) =>
    /^(-y|--yes|-p|--package|--ignore-existing)(=|$)/.test(o),
  );
  if (downloading) {
    return `${quote(command)}: \`npx ${downloading}\` downloads packages, which is not allowed; use a tool that is already installed`;
  }
  const redirect = redirectingOption({ ...command, argv: command.argv.slice(0, index) }, "npx");
  if (redirect) return redirect;
  const tool = command.argv[index];
  if (tool === undefined) return `${quote(command)}: name the tool to run`;
  if (command.dynamic[index])
    return `${quote(command)}: the tool name comes from an expansion; write it out`;
  const installed =
    /^[\w.-]+$/.test(tool) && !!ctx.fs?.exists(path.join(ctx.root, "node_modules", ".bin", tool));
  if (!NPX_TOOLS.has(tool) && !installed) {
    return `${quote(command)}: \`${tool}\` is not installed in node_modules/.bin and npx would download it; use a tool the project already has (${[...NPX_TOOLS].join(", ")})`;
  }
  return passedArgumentsDenial(
    { ...command, argv: command.argv.slice(index), dynamic: command.dynamic.slice(index) },
    ctx,
  );
}

/**
 * What a script or tool is handed (`npm test -- --outputFile=x`) may name
 * files it writes, so those words are checked like a build tool's. Past the
 * `--` they are the tool's own options again, so that `--` is dropped.
 */
function passedArgumentsDenial(command: SimpleCommand, ctx: CommandContext): Verdict {
  const end = command.argv.indexOf("--");
  const passed =
    end < 0
      ? command
      : {
          ...command,
          argv: command.argv.filter((_, i) => i !== end),
          dynamic: command.dynamic.filter((_, i) => i !== end),
        };
  return checkArguments(passed, ctx, "write");
}

const withArguments =
  (check: CommandCheck): CommandCheck =>
  (command, ctx) =>
    check(command, ctx) ?? passedArgumentsDenial(command, ctx);

/** npm, npx, yarn and pnpm (default preset). */
export const PACKAGE_COMMANDS: ReadonlyMap<string, CommandCheck> = new Map<string, CommandCheck>([
  ["npm", withArguments(npmDenial)],
  ["npx", npxDenial],
  ["yarn", withArguments(scriptRunnerDenial("yarn"))],
  ["pnpm", withArguments(scriptRunnerDenial("pnpm"))],
]);
