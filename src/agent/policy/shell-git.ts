import { resolveInWorkspace } from "./paths.js";
import {
  type Argument,
  type CommandContext,
  checkPath,
  type PathMode,
  quote,
  readArguments,
  undeclaredValueDenial,
  type Verdict,
} from "./shell-args.js";
import type { SimpleCommand } from "./shell-command.js";

export interface GitInvocation {
  /** Index of the subcommand in argv, or argv.length when there is none. */
  index: number;
  subcommand: string | undefined;
  /** `-c name=value` / `--config-env` settings given before the subcommand. */
  configs: { text: string; dynamic: boolean }[];
  /** `-C dir` values. */
  directories: { text: string; dynamic: boolean }[];
  /** Global options that point git at another repository or program. */
  redirection: string | undefined;
}

const GLOBAL_VALUES = new Set([
  "-C",
  "-c",
  "--config-env",
  "--git-dir",
  "--work-tree",
  "--namespace",
]);
const REDIRECTING = [
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--exec-path",
  "--bare",
  "--super-prefix",
];

export function parseGit(command: SimpleCommand): GitInvocation {
  const { argv, dynamic } = command;
  const found: GitInvocation = {
    index: argv.length,
    subcommand: undefined,
    configs: [],
    directories: [],
    redirection: undefined,
  };
  for (let i = 1; i < argv.length; i += 1) {
    const word = argv[i] ?? "";
    if (dynamic[i] || !word.startsWith("-")) {
      found.index = i;
      found.subcommand = dynamic[i] ? undefined : word;
      return found;
    }
    const name = word.split("=")[0] ?? word;
    const value = word.includes("=") ? word.slice(name.length + 1) : argv[i + 1];
    if (GLOBAL_VALUES.has(word)) i += 1;
    if (name === "-c" || name === "--config-env") {
      found.configs.push({ text: value ?? "", dynamic: !!dynamic[i] });
    }
    if (name === "-C") found.directories.push({ text: value ?? "", dynamic: !!dynamic[i] });
    // `--exec-path` alone only prints where git's programs live.
    if (REDIRECTING.includes(name) && !(word === "--exec-path")) found.redirection = name;
  }
  return found;
}

const PUSHING = new Set(["push", "send-pack", "http-push"]);

/** Config names that define an alias, or load a file that may. */
const ALIASING = /^(alias\.|include\.|includeif\.)/i;

/** A set from a space-separated list (long lists of names read better that way). */
function words(list: string): ReadonlySet<string> {
  return new Set(list.split(" "));
}

/**
 * A subcommand the policy cannot read (an expansion, a pattern, words from
 * xargs' input) could be `push`, so no preset runs it.
 */
function hiddenSubcommand(command: SimpleCommand, git: GitInvocation): Verdict {
  const why = "; write it out, since the policy must see it to keep pushing to the job";
  if (git.index < command.argv.length && git.subcommand === undefined) {
    return `${quote(command)}: the git subcommand comes from an expansion${why}`;
  }
  if (git.subcommand === undefined && command.argsFromInput) {
    return `${quote(command)}: the git subcommand comes from input through xargs${why}`;
  }
  if (git.subcommand !== undefined && /[*?[]/.test(git.subcommand)) {
    return `${quote(command)}: the git subcommand \`${git.subcommand}\` is a pattern the shell may expand to a file name${why}`;
  }
  return undefined;
}

/** Pushing is the job's business (with its own token), never the agent's. */
export function gitPushDenial(command: SimpleCommand): Verdict {
  const name = command.argv[0] ?? "";
  const message = `${quote(command)}: pushing is not allowed; the job pushes your commits when you finish, so commit and stop there`;
  if (["git-push", "git-send-pack", "git-http-push"].includes(name)) return message;
  if (name !== "git") return undefined;
  const git = parseGit(command);
  const hidden = hiddenSubcommand(command, git);
  if (hidden) return hidden;
  if (git.subcommand && PUSHING.has(git.subcommand)) return message;
  // An alias can hide a push: `git -c alias.p=push p`, `git config alias.p push`, or an
  // included file, or a setting whose name is only known at run time (`git -c $X`).
  if (git.configs.some((config) => config.dynamic)) {
    return `${quote(command)}: \`git -c\` with a setting built from an expansion could define an alias that hides a push; write the setting out`;
  }
  const setsAlias =
    git.configs.some((config) => ALIASING.test(config.text)) ||
    (git.subcommand === "config" && command.argv.some((arg) => ALIASING.test(arg)));
  return setsAlias
    ? `${quote(command)}: git aliases (and included config files, which can hold them) are not allowed, because they can hide a push; run the git command directly`
    : undefined;
}

/** Subcommands that only read the repository. */
const READ = words(
  "status diff log show blame annotate ls-files grep rev-parse ls-tree cat-file rev-list " +
    "merge-base describe show-ref shortlog diff-tree diff-files diff-index name-rev " +
    "for-each-ref whatchanged check-ignore version help",
);

/** Subcommands that change only the local checkout and history (default preset). */
const LOCAL = words(
  "add commit checkout switch restore stash mv rm apply reset revert cherry-pick merge " +
    "rebase tag branch clean am format-patch reflog notes",
);

const NETWORK = words(
  "fetch pull clone ls-remote submodule archive request-pull send-email svn p4 bundle",
);
const CONFIGURING = words(
  "config remote credential worktree init hook filter-branch replace update-ref " +
    "update-index gc prune repack maintenance",
);

const BRANCH_CHANGES = [
  ...words(
    "-d -D --delete -m -M --move -c -C --copy -f --force -u --set-upstream-to " +
      "--unset-upstream --edit-description -t --track",
  ),
];
const TAG_CHANGES = [
  ...words("-d --delete -a --annotate -s --sign -u -m --message -F --file -f --force -e --edit"),
];
const LISTING_VALUES = [
  ...words("--contains --no-contains --merged --no-merged --points-at --sort --format --column"),
];

/** `git branch` / `git tag` that only list. */
function onlyLists(args: SimpleCommand, changes: readonly string[]): boolean {
  if (args.argv.some((arg) => changes.includes(arg.split("=")[0] ?? arg))) return false;
  const { operands } = readArguments(args, { values: LISTING_VALUES });
  return operands.length === 0 || args.argv.some((arg) => arg === "--list" || arg === "-l");
}

/** Message and file options whose value is text, not a path. */
const TEXT_VALUES = [
  ...words(
    "-m --message --author --date -S -G --grep --format --pretty -n --max-count --since " +
      "--until --after --before -U --unified -e --word-diff-regex",
  ),
];

const DIFF_OUTPUT: Readonly<Record<string, PathMode>> = { "--output": "write" };

/** Options whose value is a file, per subcommand (`git commit -F msg.txt`, `git diff --output=x`). */
const FILE_OPTIONS: Readonly<Record<string, Readonly<Record<string, PathMode>>>> = {
  commit: { "-F": "read", "--file": "read", "-t": "read", "--template": "read" },
  tag: { "-F": "read", "--file": "read" },
  merge: { "-F": "read", "--file": "read" },
  notes: { "-F": "read", "--file": "read" },
  "format-patch": { "-o": "write", "--output-directory": "write", "--output": "write" },
  blame: { "--contents": "read", "-S": "read", "--ignore-revs-file": "read" },
  annotate: { "--contents": "read", "-S": "read", "--ignore-revs-file": "read" },
  grep: { "-f": "read" },
  ...Object.fromEntries(
    ["diff", "log", "show", "diff-tree", "diff-files", "diff-index", "whatchanged"].map(
      (sub) => [sub, DIFF_OUTPUT] as const,
    ),
  ),
};

/** The subcommand's own argv (`git -C x commit -m hi` -> `commit -m hi`). */
function subcommandArgs(command: SimpleCommand, index: number): SimpleCommand {
  return { ...command, argv: command.argv.slice(index), dynamic: command.dynamic.slice(index) };
}

function subcommandDenial(args: SimpleCommand, ctx: CommandContext): Verdict {
  const sub = args.argv[0] ?? "";
  const say = `\`git ${sub}\``;
  if (NETWORK.has(sub)) {
    return `${say} needs the network and is not allowed; work with the history already in the checkout`;
  }
  if (CONFIGURING.has(sub)) {
    return `${say} changes repository configuration, which belongs to the job; it is not allowed`;
  }
  const readOnly = ctx.preset === "read-only";
  const listing =
    (sub === "branch" && onlyLists(args, BRANCH_CHANGES)) ||
    (sub === "tag" && onlyLists(args, TAG_CHANGES)) ||
    (sub === "stash" && ["list", "show"].includes(args.argv[1] ?? "")) ||
    (sub === "reflog" && [undefined, "show"].includes(args.argv[1]));
  if (!READ.has(sub) && !listing && (readOnly || !LOCAL.has(sub))) {
    return readOnly
      ? `${say} changes the repository, which the read-only preset does not allow; use git status/diff/log/show to inspect it`
      : `${say} is not among the git commands the policy allows (status, diff, log, show, add, commit, checkout, switch, restore, stash, reset, ...); use one of those`;
  }
  if (
    sub === "grep" &&
    args.argv.some((arg) => arg === "-O" || arg.startsWith("--open-files-in-pager"))
  ) {
    return `${say}: \`--open-files-in-pager\` runs another program; search without it`;
  }
  if (sub === "rebase" && args.argv.some((arg) => /^(-x|--exec|-i|--interactive)(=|$)/.test(arg))) {
    return `${say}: interactive rebases and \`--exec\` are not allowed; rebase non-interactively`;
  }
  return undefined;
}

/** File options, other option values and path-like operands of a git subcommand. */
function argumentDenial(command: SimpleCommand, args: SimpleCommand, ctx: CommandContext): Verdict {
  const fileOptions = FILE_OPTIONS[args.argv[0] ?? ""] ?? {};
  const { operands, values } = readArguments(args, {
    values: TEXT_VALUES,
    pathValues: fileOptions,
  });
  for (const value of values) {
    const mode = value.option ? fileOptions[value.option] : undefined;
    // Options the policy does not list (`--contents=`, `--pathspec-from-file=`) may take a path.
    const verdict = mode
      ? checkPath(command, value.text, value.dynamic, mode, ctx)
      : undeclaredValueDenial(command, value, ctx);
    if (verdict) return verdict;
  }
  const hidden = optionFromExpansion(command, args, operands);
  if (hidden) return hidden;
  for (const operand of operands) {
    // Revisions and pathspecs are often dynamic (`-m "$(cat msg)"`); git refuses pathspecs outside the repository.
    if (operand.dynamic || !/^[/~]|(^|\/)\.\.(\/|$)/.test(operand.text)) continue;
    if (!resolveInWorkspace(operand.text, ctx.root, ctx.fs).inside) {
      return `${quote(command)}: \`${operand.text}\` is outside the workspace; only files inside the workspace may be used`;
    }
  }
  return undefined;
}

/**
 * Before `--`, a word that expands at run time could turn into an option
 * (`git diff $X` with X=--output=/elsewhere): for subcommands with file
 * options, such a word is refused unless it plainly starts as a revision.
 */
function optionFromExpansion(
  command: SimpleCommand,
  args: SimpleCommand,
  operands: readonly Argument[],
): Verdict {
  if (!FILE_OPTIONS[args.argv[0] ?? ""]) return undefined;
  const end = args.argv.findIndex((word, i) => word === "--" && !args.dynamic[i]);
  const risky = operands.find(
    (operand) =>
      operand.dynamic && (end < 0 || operand.index < end) && /^[-$`{<]/.test(operand.text),
  );
  return risky
    ? `${quote(command)}: \`${risky.text}\` is only known when the command runs and could expand to an option that writes or reads a file (--output=...); write the revision out, or put paths after \`--\``
    : undefined;
}

/** git under the read-only and default presets. */
export function checkGit(command: SimpleCommand, ctx: CommandContext): Verdict {
  const git = parseGit(command);
  if (git.configs.length > 0) {
    return `${quote(command)}: \`git -c\` sets configuration that can run programs (core.sshCommand, aliases), so it is not allowed; run git without -c`;
  }
  if (git.redirection) {
    return `${quote(command)}: \`${git.redirection}\` points git at another repository or program; run git in the workspace without it`;
  }
  for (const directory of git.directories) {
    const verdict = checkPath(command, directory.text, directory.dynamic, "read", ctx);
    if (verdict) return verdict;
    const resolved = resolveInWorkspace(directory.text, ctx.root, ctx.fs);
    if (resolved.inside && resolved.inGit) {
      return `${quote(command)}: running git inside .git/ is not allowed; run it from the workspace`;
    }
  }
  const push = gitPushDenial(command);
  if (push) return push;
  if (git.subcommand === undefined) return undefined;
  if (command.argsFromInput) {
    return `${quote(command)}: through xargs git takes options and paths from input, which the policy cannot check; name them in the command`;
  }
  const args = subcommandArgs(command, git.index);
  return subcommandDenial(args, ctx) ?? argumentDenial(command, args, ctx);
}
