import path from "node:path";
import { resolveInWorkspace } from "./paths.js";
import { type CommandContext, readArguments, type Verdict } from "./shell-args.js";
import type { SimpleCommand } from "./shell-command.js";
import { WRITING_COMMANDS } from "./shell-files.js";
import { gitPushDenial } from "./shell-git.js";
import { isOutput } from "./shell-words.js";

function baseName(command: SimpleCommand): SimpleCommand {
  const name = command.argv[0] ?? "";
  return { ...command, argv: [name.slice(name.lastIndexOf("/") + 1), ...command.argv.slice(1)] };
}

function intoGit(text: string, ctx: CommandContext): boolean {
  const resolved = resolveInWorkspace(text, ctx.root, ctx.fs);
  return resolved.inside && resolved.inGit;
}

const GIT_WRITE =
  "is managed by git and the job and must not be changed directly; use git commands for repository state";

/**
 * The ways one word of a writing command may name a file: an operand as
 * written or after `=` (`dd of=x`), a long option's value after `=`, and
 * what follows any letter of a short option cluster, since that letter may
 * take the rest as its value (`cp -vt.git/hooks`).
 */
function namedFiles(word: string): string[] {
  if (word.startsWith("--")) return word.includes("=") ? [word.slice(word.indexOf("=") + 1)] : [];
  if (word.startsWith("-")) {
    const letters = (/^-[A-Za-z0-9]*/.exec(word)?.[0].length ?? 1) - 1;
    return Array.from({ length: letters }, (_, k) => word.slice(k + 2)).filter(Boolean);
  }
  return word.includes("=") ? [word, word.slice(word.indexOf("=") + 1)] : [word];
}

/**
 * `ln -s TARGET LINK` stores TARGET as written, and it is resolved from the
 * link's folder later (`ln -s ../.git/hooks src/h`), so relative targets are
 * also checked from there: from the -t folder, or from the link (as a folder
 * it may be) and its parent.
 */
function linkTargets(command: SimpleCommand): string[] {
  const { operands, values } = readArguments(command, {
    values: ["-S", "--suffix"],
    pathValues: { "-t": "write", "--target-directory": "write" },
  });
  const folder = values.find((v) => v.option === "-t" || v.option === "--target-directory");
  const link = operands.length > 1 ? operands.at(-1)?.text : undefined;
  const bases = folder ? [folder.text] : link ? [path.posix.dirname(link), link] : [];
  return (folder ? operands : operands.slice(0, -1))
    .filter((target) => !target.dynamic && !path.isAbsolute(target.text))
    .flatMap((target) => bases.map((base) => path.posix.join(base, target.text)));
}

/** What every preset denies, allow rules notwithstanding: pushing and writing into .git/. */
export function invariantDenial(command: SimpleCommand, ctx: CommandContext): Verdict {
  const named = baseName(command);
  const push = gitPushDenial(named);
  if (push) return push;
  const name = named.argv[0] ?? "";
  if (WRITING_COMMANDS.has(name) || name === "cd") {
    const target = named.argv
      .slice(1)
      .filter((_, i) => !command.dynamic[i + 1])
      .find((arg) => namedFiles(arg).some((file) => intoGit(file, ctx)));
    if (target !== undefined) {
      return `\`${command.text}\`: \`${target}\` is inside .git/, which ${GIT_WRITE}`;
    }
    const link = name === "ln" ? linkTargets(named).find((t) => intoGit(t, ctx)) : undefined;
    if (link !== undefined) {
      return `\`${command.text}\`: the link would point at \`${link}\`, inside .git/, which ${GIT_WRITE}`;
    }
  }
  for (const redirect of command.redirects) {
    if (isOutput(redirect) && !redirect.dynamic && intoGit(redirect.target, ctx)) {
      return `\`${`${command.text} ${redirect.op} ${redirect.target}`.trim()}\`: .git/ ${GIT_WRITE}`;
    }
  }
  return undefined;
}
