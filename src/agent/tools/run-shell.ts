import { describeNetworkTrouble, findNetworkTrouble } from "../../sandbox/network-trouble.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import * as z from "../../zod.js";
import {
  describeExit,
  findShell,
  runShellProcess,
  type ShellOutcome,
  type ShellProcessOptions,
} from "../shell-process.js";
import { defineTool, type ShellChange, ToolError } from "./define-tool.js";
import { describeShellChange, markShellChanges } from "./fs/read-guard.js";
import { INPUT_SCHEMAS } from "./input-schemas.js";

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const MAX_TIMEOUT_SECONDS = 600;

export interface RunShellOptions extends ShellProcessOptions {
  /** Shell to run commands with; default bash from PATH, else /bin/sh. */
  shell?: string;
}

const input = z.object({
  command: z
    .string()
    .check(z.minLength(1), z.describe('The shell command to run (bash syntax), e.g. "npm test"')),
  timeout: z
    .optional(z.number().check(z.positive(), z.lte(MAX_TIMEOUT_SECONDS)))
    .check(
      z.describe(
        `Timeout in seconds (default ${DEFAULT_TIMEOUT_SECONDS}, max ${MAX_TIMEOUT_SECONDS})`,
      ),
    ),
});

export function createRunShellTool(options: RunShellOptions = {}) {
  return defineTool({
    name: "run_shell",
    kind: "shell",
    description: [
      "Runs a shell command with bash in the workspace root and returns its exit code, stdout and stderr.",
      "Use it to build, run tests, or inspect the repository (e.g. git status, git log).",
      "It is non-interactive: stdin is closed, so commands that prompt fail; pass flags like --yes.",
      "It runs in a sandbox: only the workspace is writable, HOME and /tmp are private, git metadata is read-only",
      "and there is no network unless the repository allows it.",
      "The environment holds no credentials. Background processes are stopped when the command returns,",
      `so start and use a server within one command. Default timeout ${DEFAULT_TIMEOUT_SECONDS}s, max ${MAX_TIMEOUT_SECONDS}s.`,
      "Prefer read_file, list_files and grep_search over cat, find and grep.",
    ].join(" "),
    input,
    inputJsonSchema: INPUT_SCHEMAS.run_shell,
    summarize: (args) => `run_shell ${firstLine(args.command)}`,
    async run(args, ctx) {
      if (ctx.signal.aborted)
        throw new ToolError("the run was cancelled before the command started");
      const shell = options.shell ?? (await findShell(ctx.env.PATH));
      const timeout = args.timeout ?? DEFAULT_TIMEOUT_SECONDS;
      const { value: outcome, changes } = await ctx.trackChanges(() =>
        runShellProcess(
          shell,
          args.command,
          timeout,
          { cwd: ctx.root, env: ctx.env, signal: ctx.signal, sandbox: ctx.sandbox },
          options,
        ),
      );
      const stale = markShellChanges(ctx, args.command, changes);
      return formatOutcome(outcome, timeout) + staleNote(stale) + networkNote(outcome, ctx.sandbox);
    },
  });
}

export const runShellTool = createRunShellTool();

function firstLine(command: string): string {
  const line = command.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 80)}...` : line;
}

const EXIT_LINE = /^exit code: (.+)$/m;

/** The exit status a run_shell result reports ("0", "1", "143 (killed by SIGTERM)"), or null. */
export function exitOfResult(content: string): string | null {
  return EXIT_LINE.exec(content)?.[1]?.trim() ?? null;
}

/**
 * A command that failed on the network (a TLS certificate, a name, a
 * refused connection, the allow-list) says so in words, with the setting
 * that decides it: the model cannot fix the network, and should not try.
 */
function networkNote(outcome: ShellOutcome, sandbox: Sandbox): string {
  if (outcome.code === 0 && outcome.stoppedBy === null) return "";
  const trouble = findNetworkTrouble(`${outcome.stdout}\n${outcome.stderr}`);
  if (!trouble) return "";
  const said = describeNetworkTrouble(trouble, { network: sandbox.network, setting: "network" });
  return `\nnote: ${said}. This is the job's setting, not something a command can change.`;
}

const MAX_LISTED_STALE = 20;

/** Files the model had read that this command changed: it must read them again before changing them. */
function staleNote(stale: Array<{ path: string; change: ShellChange }>): string {
  if (stale.length === 0) return "";
  const listed = stale
    .slice(0, MAX_LISTED_STALE)
    .map(({ path, change }) => `${path} (${describeShellChange(change)})`);
  const more =
    stale.length > MAX_LISTED_STALE ? `, and ${stale.length - MAX_LISTED_STALE} more` : "";
  return `\nnote: this command changed files you had read: ${listed.join(", ")}${more}. Call read_file on them again before edit_file or write_file changes them.`;
}

function formatOutcome(outcome: ShellOutcome, timeoutSeconds: number): string {
  const lines: string[] = [];
  if (outcome.stoppedBy === "timeout") {
    lines.push(
      `timed out after ${timeoutSeconds}s; the command and every process it started were killed`,
    );
  } else if (outcome.stoppedBy === "abort") {
    lines.push(
      !outcome.started
        ? "aborted: the run was cancelled before the command started"
        : "aborted: the run was cancelled; the command and every process it started were killed",
    );
  }
  lines.push(`exit code: ${describeExit(outcome)}`);
  if (outcome.leftovers) {
    lines.push("note: processes the command left running in the background were stopped");
  }
  if (outcome.stdout) lines.push("stdout:", outcome.stdout.replace(/\n$/, ""));
  if (outcome.stderr) lines.push("stderr:", outcome.stderr.replace(/\n$/, ""));
  if (!outcome.stdout && !outcome.stderr) lines.push("(no output)");
  return lines.join("\n");
}
