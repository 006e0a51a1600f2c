import { resolveInWorkspace } from "./paths.js";
import {
  type ArgumentSpec,
  type CommandContext,
  checkArguments,
  checkPath,
  noPaths,
  quote,
  readArguments,
  type Verdict,
} from "./shell-args.js";
import type { SimpleCommand } from "./shell-command.js";

export type CommandCheck = (command: SimpleCommand, ctx: CommandContext) => Verdict;

const readFiles =
  (spec: ArgumentSpec = {}): CommandCheck =>
  (command, ctx) =>
    checkArguments(command, ctx, "read", spec);

const GREP: ArgumentSpec = {
  values: [
    "-e",
    "--regexp",
    "-m",
    "--max-count",
    "-A",
    "-B",
    "-C",
    "--context",
    "--label",
    "--include",
    "--exclude",
    "--exclude-dir",
    "-d",
    "-D",
  ],
  pathValues: { "-f": "read", "--file": "read", "--exclude-from": "read" },
  firstOperandUnless: ["-e", "--regexp", "-f", "--file"],
};

const RG: ArgumentSpec = {
  values: [
    "-e",
    "--regexp",
    "-g",
    "--glob",
    "--iglob",
    "-t",
    "--type",
    "-T",
    "--type-not",
    "--type-add",
    "-m",
    "--max-count",
    "-A",
    "-B",
    "-C",
    "--context",
    "-j",
    "--threads",
    "-M",
    "--max-columns",
    "-r",
    "--replace",
    "--sort",
    "--sortr",
    "-E",
    "--encoding",
    "-d",
    "--max-depth",
    "--color",
    "--colors",
  ],
  pathValues: { "-f": "read", "--file": "read", "--ignore-file": "read" },
  firstOperandUnless: ["-e", "--regexp", "-f", "--file"],
};

/** rg options that run another program for each file. */
const RG_PROGRAMS = ["--pre", "--hostname-bin"];

function checkRg(command: SimpleCommand, ctx: CommandContext): Verdict {
  const program = command.argv.find((arg) => RG_PROGRAMS.some((o) => arg.split("=")[0] === o));
  if (program) {
    return `${quote(command)}: \`${program}\` makes rg run another program, which is not allowed; search without it`;
  }
  return checkArguments(command, ctx, "read", RG);
}

const FIND_WRITES = ["-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];
const FIND_EXECS = ["-exec", "-execdir", "-ok", "-okdir"];
/** Tests that compare with another file's metadata, so that file is read too (`-newermt` takes a date). */
const FIND_FILE_TESTS = /^-(newer|anewer|cnewer|samefile|newer[aBcm][aBcm])$/;

/** What find does after its start paths: writes, runs commands, reads other files. */
function findActionDenial(command: SimpleCommand, from: number, ctx: CommandContext): Verdict {
  const { argv, dynamic } = command;
  const write = argv.slice(from).find((word) => FIND_WRITES.includes(word));
  if (write) {
    return `${quote(command)}: \`find ${write}\` changes files it finds, which could include .git/; list the files with find and then name them explicitly`;
  }
  if (argv.includes("-files0-from")) {
    return `${quote(command)}: \`-files0-from\` reads the names of the files to search from a file, so the policy cannot check them; name the folders as arguments instead`;
  }
  const exec = argv.slice(from).find((word) => FIND_EXECS.includes(word));
  if (exec && ctx.preset === "read-only") {
    return `${quote(command)}: \`find ${exec}\` runs commands, which the read-only preset does not allow; use find to list files and read them with read_file`;
  }
  for (let i = from; i < argv.length; i += 1) {
    if (dynamic[i] || !FIND_FILE_TESTS.test(argv[i] ?? "")) continue;
    const verdict = checkPath(command, argv[i + 1] ?? "", dynamic[i + 1] ?? false, "read", ctx);
    if (verdict) return verdict;
  }
  return undefined;
}

/** find: the start paths must be inside; -exec is checked through the wrapped command. */
function checkFind(command: SimpleCommand, ctx: CommandContext): Verdict {
  const { argv, dynamic } = command;
  let i = 1;
  for (; i < argv.length; i += 1) {
    const word = argv[i] ?? "";
    if (!dynamic[i] && (word.startsWith("-") || word === "(" || word === "!")) break;
    const verdict = checkPath(command, word, dynamic[i] ?? false, "read", ctx);
    if (verdict) return verdict;
  }
  return findActionDenial(command, i, ctx);
}

/** uniq's second operand is its output file. */
function checkUniq(command: SimpleCommand, ctx: CommandContext): Verdict {
  const { operands } = readArguments(command, { values: ["-f", "-s", "-w"] });
  for (const [position, operand] of operands.entries()) {
    const mode = position === 0 ? "read" : "write";
    const verdict = checkPath(command, operand.text, operand.dynamic, mode, ctx);
    if (verdict) return verdict;
  }
  return undefined;
}

function checkSort(command: SimpleCommand, ctx: CommandContext): Verdict {
  if (command.argv.some((arg) => arg.startsWith("--compress-program"))) {
    return `${quote(command)}: \`--compress-program\` makes sort run another program, which is not allowed; sort without it`;
  }
  return checkArguments(command, ctx, "read", {
    values: ["-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "--parallel"],
    pathValues: {
      "-o": "write",
      "--output": "write",
      "-T": "write",
      "--temporary-directory": "write",
      "--random-source": "read",
    },
    namesFrom: ["--files0-from"],
  });
}

/** cd must stay inside the workspace: later relative paths are checked against the root. */
export function checkCd(command: SimpleCommand, ctx: CommandContext): Verdict {
  const { operands } = readArguments(command);
  const target = operands[0];
  if (!target || target.text === "-") {
    return `${quote(command)} leaves the workspace; \`cd\` into a folder inside the workspace instead`;
  }
  const verdict = checkPath(command, target.text, target.dynamic, "read", ctx);
  if (verdict) return verdict;
  // Later relative paths are checked as if relative to the root, which would not hold inside .git/.
  const resolved = resolveInWorkspace(target.text, ctx.root, ctx.fs);
  return resolved.inside && resolved.inGit
    ? `${quote(command)}: working inside .git/ is not allowed; use git commands for repository state`
    : undefined;
}

/** Commands that only read files (and print); allowed by the read-only preset and above. */
export const READ_COMMANDS: ReadonlyMap<string, CommandCheck> = new Map<string, CommandCheck>([
  ["ls", readFiles({ values: ["-I", "--ignore", "-w", "--width"] })],
  ["cat", readFiles()],
  ["head", readFiles({ values: ["-n", "-c", "--lines", "--bytes"] })],
  ["tail", readFiles({ values: ["-n", "-c", "--lines", "--bytes", "-s", "--pid"] })],
  ["wc", readFiles({ namesFrom: ["--files0-from"] })],
  ["grep", readFiles(GREP)],
  ["egrep", readFiles(GREP)],
  ["fgrep", readFiles(GREP)],
  ["rg", checkRg],
  ["find", checkFind],
  ["sort", checkSort],
  ["uniq", checkUniq],
  ["cut", readFiles({ values: ["-d", "--delimiter", "-f", "--fields", "-c", "-b"] })],
  ["tr", noPaths],
  [
    "diff",
    readFiles({
      values: ["-U", "-C", "--label", "-x", "--exclude", "-I"],
      pathValues: {
        "-X": "read",
        "--exclude-from": "read",
        "--from-file": "read",
        "--to-file": "read",
      },
    }),
  ],
  ["cmp", readFiles()],
  ["comm", readFiles()],
  [
    "file",
    readFiles({
      values: ["-F", "--separator", "-e", "--exclude", "-P", "--parameter"],
      pathValues: { "-m": "read", "--magic-file": "read" },
      namesFrom: ["-f", "--files-from"],
    }),
  ],
  ["stat", readFiles({ values: ["-c", "--format", "--printf"] })],
  ["tree", readFiles({ values: ["-I", "-P", "-L"], pathValues: { "-o": "write" } })],
  ["nl", readFiles()],
  [
    "du",
    readFiles({
      values: ["-d", "--max-depth", "-B", "--block-size", "-t", "--threshold", "--exclude"],
      pathValues: { "-X": "read", "--exclude-from": "read" },
      namesFrom: ["--files0-from"],
    }),
  ],
  ["md5sum", readFiles()],
  ["sha1sum", readFiles()],
  ["sha256sum", readFiles()],
  ["realpath", readFiles()],
  ["readlink", readFiles()],
  ["cd", checkCd],
  ["pwd", noPaths],
  ["echo", noPaths],
  ["printf", noPaths],
  ["which", noPaths],
  ["basename", noPaths],
  ["dirname", noPaths],
  ["true", noPaths],
  ["false", noPaths],
  [":", noPaths],
  ["test", noPaths],
  ["[", noPaths],
  ["seq", noPaths],
  ["sleep", noPaths],
  // date reads dates from `-f FILE` and a file's time from `-r FILE`; its operands are formats.
  [
    "date",
    readFiles({
      values: ["-d", "--date", "-s", "--set"],
      pathValues: { "-f": "read", "--file": "read", "-r": "read", "--reference": "read" },
    }),
  ],
]);
