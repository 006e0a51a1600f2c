import type { CommandContext, Verdict } from "./shell-args.js";
import { BUILD_COMMANDS } from "./shell-build.js";
import type { SimpleCommand } from "./shell-command.js";
import { explicitDenial, isTransparentWrapper, wrapperFileDenial } from "./shell-denials.js";
import { FILE_COMMANDS } from "./shell-files.js";
import { checkGit } from "./shell-git.js";
import { type CommandCheck, READ_COMMANDS } from "./shell-read.js";

/**
 * The presets (presets.ts) on shell commands: what each lets a simple
 * command do. Apart from presets.ts because only the shell policy
 * (shell-policy.ts) needs it, and that loads with the shell grammar, after
 * the first model request has gone (policy.ts `loadPolicyRules`).
 */

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
