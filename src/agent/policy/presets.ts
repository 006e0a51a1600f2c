import type { ToolFacts } from "../tools/define-tool.js";
import type { CommandContext, PresetName, Verdict } from "./shell-args.js";
import { BUILD_COMMANDS } from "./shell-build.js";
import type { SimpleCommand } from "./shell-command.js";
import { explicitDenial, isTransparentWrapper, wrapperFileDenial } from "./shell-denials.js";
import { FILE_COMMANDS } from "./shell-files.js";
import { checkGit } from "./shell-git.js";
import { type CommandCheck, READ_COMMANDS } from "./shell-read.js";

export type { PresetName } from "./shell-args.js";

/**
 * - read-only: read and search tools; shell commands that only read files
 *   inside the workspace; no file changes.
 * - default: read-only plus file edits inside the workspace and a list of
 *   local file, git, build and test commands; no network, no privileges.
 * - trusted: everything, including reads outside the workspace and code the
 *   policy cannot see through (`python -c "$X"`, piping into python), except
 *   the config's deny rules, `git push` (pushing is the job's business, never
 *   the agent's) and writes into .git/. To keep those two limits it still
 *   needs to see which program, git subcommand and git configuration run, so
 *   it denies what could hide a push: a command name, git subcommand or
 *   `sh -c` program from an expansion (`git $X`, `bash -c "$X"`), `eval`, a
 *   shell reading its program from a pipe, redirect or `<( )`, `git -c` built
 *   from an expansion or defining aliases or includes, and any GIT_CONFIG_*
 *   variable (or a variable whose name is hidden). These limits keep an honest
 *   model from pushing by mistake; a script file it wrote can still run
 *   anything, so the boundary is the sandbox, which holds no push credential.
 */
export const PRESET_NAMES = ["read-only", "default", "trusted"] as const;

/**
 * The preset's verdict on a call of a tool that is not a shell (paths, if
 * any, already known to be inside the workspace), from the facts the tool
 * declares: reading is always allowed, changing files needs more than
 * read-only, and anything else (an MCP tool) must say it is read-only or be
 * trusted, unless an allow rule names it.
 */
export function toolPresetDenial(
  preset: PresetName,
  /** No kind: a tool the registry does not hold. */
  tool: Pick<ToolFacts, "name"> & Partial<Pick<ToolFacts, "kind" | "readOnly">>,
  shown: string,
): Verdict {
  if (tool.readOnly === true) return undefined;
  const call = shown === "" ? tool.name : `${tool.name} ${shown}`;
  if (tool.kind === "write") {
    return preset === "read-only"
      ? `\`${call}\`: the read-only preset does not allow changing files; describe the change in your answer instead`
      : undefined;
  }
  if (preset === "trusted") return undefined;
  if (tool.kind === "external") {
    return `\`${tool.name}\` is not marked read-only by its server, so the ${preset} preset does not allow it; do without it, or a maintainer can add the allow rule \`${tool.name}\` to the policy config`;
  }
  return `\`${tool.name}\` is not a tool the policy knows, so the ${preset} preset does not allow it; use the file and shell tools`;
}

/** Shell plumbing that neither reads nor writes files. */
const noFiles: CommandCheck = () => undefined;
const SHELL_BUILTINS: ReadonlyMap<string, CommandCheck> = new Map(
  [
    "export",
    "unset",
    "set",
    "local",
    "declare",
    "typeset",
    "readonly",
    "read",
    "exit",
    "return",
    "shift",
  ].map((name) => [name, noFiles] as const),
);

const READ_EXAMPLES = "ls, cat, head, grep, rg, find, wc, diff, git status/diff/log/show";
const DEFAULT_EXAMPLES =
  "mkdir, cp, mv, rm, sed, git add/commit, npm test, npm run <script>, npx <installed tool>, make, cargo test, go test, pytest";

/** The preset's verdict on one simple command (redirects are checked separately). */
export function commandPresetDenial(command: SimpleCommand, ctx: CommandContext): Verdict {
  const name = command.argv[0];
  if (name === undefined || ctx.preset === "trusted") return undefined;
  // Denials look at the program's base name (`/usr/bin/curl`); allowances need the bare name,
  // so `./tools/ls` cannot pass as `ls`.
  const base = name.slice(name.lastIndexOf("/") + 1);
  const denial = explicitDenial({ ...command, argv: [base, ...command.argv.slice(1)] });
  if (denial) return denial;
  if (isTransparentWrapper(command)) return wrapperFileDenial(command, ctx);
  if (name === "git") return checkGit(command, ctx);
  const check = READ_COMMANDS.get(name) ?? SHELL_BUILTINS.get(name);
  if (check) return check(command, ctx);
  if (ctx.preset === "read-only") {
    return `\`${name}\` is not a read-only command and the read-only preset only runs commands that read (${READ_EXAMPLES}); use read_file, list_files or grep_search`;
  }
  const more = FILE_COMMANDS.get(name) ?? BUILD_COMMANDS.get(name);
  if (more) return more(command, ctx);
  return `\`${name}\` is not on the default preset's command list (${READ_EXAMPLES}, ${DEFAULT_EXAMPLES}); use the file tools or one of those, or a maintainer can add an allow rule such as \`run_shell: ${name} *\` to the policy config`;
}
