import { describeNetworkTrouble, findNetworkTrouble } from "../../sandbox/network-trouble.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { describeExit, findShell, runShellProcess, type ShellOutcome } from "../shell-process.js";
import { type ShellChange, type ToolContext, ToolError } from "./define-tool.js";
import { describeShellChange, markShellChanges } from "./fs/read-guard.js";
import {
  DEFAULT_TIMEOUT_SECONDS,
  type RunShellInput,
  type RunShellOptions,
} from "./run-shell-input.js";

/** run_shell's work, loaded at its first call (define-tool.ts runOnFirstCall). */
export async function runShellRun(
  args: RunShellInput,
  ctx: ToolContext,
  options: RunShellOptions,
): Promise<string> {
  if (ctx.signal.aborted) throw new ToolError("the run was cancelled before the command started");
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
