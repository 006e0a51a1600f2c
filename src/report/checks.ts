import type { CommandRecord } from "../agent/command-log.js";
import { isCheckCommand } from "./check-commands.js";
import { type CommandPart, splitShellCommand } from "./shell-split.js";

/**
 * The agent's commands that checked its work (test runners, linters, type
 * checkers, builds), so reports state what was actually run, with its exit
 * status, rather than what the model says it ran. Pure: a judgement on the
 * command text (check-commands.ts), never on its output.
 */

export interface CheckRun {
  command: string;
  /** As the tool log has it: "0", "1", "143 (killed by SIGTERM)", "denied", "error". */
  exit: string;
  passed: boolean;
  /**
   * The exit status is not the check's own: its output went into a pipe, or
   * a command after it decides the status (`| tail`, `|| true`, `; echo`).
   */
  statusMasked: boolean;
  outputTail: string;
}

/** The check commands among the agent's, in the order it ran them. */
export function checksRun(commands: readonly CommandRecord[]): CheckRun[] {
  const runs: CheckRun[] = [];
  for (const record of commands) {
    const parts = splitShellCommand(record.command);
    const checks = parts.flatMap((part, index) => (isCheckCommand(part.words) ? [index] : []));
    if (checks.length === 0) continue;
    const pipefail = /\bpipefail\b/.test(record.command);
    runs.push({
      command: record.command,
      exit: record.exit,
      passed: record.passed,
      statusMasked: checks.some((index) => isMasked(parts.slice(index), pipefail)),
      outputTail: record.outputTail,
    });
  }
  return runs;
}

/** How a run reads in every report, so the PR, the comment and the CLI agree. */
export function checkStatus(run: CheckRun): { icon: string; words: string } {
  if (run.exit === "denied")
    return { icon: "🚫", words: "denied by the policy, so it did not run" };
  if (run.exit === "error") return { icon: "❌", words: "did not finish (no exit status)" };
  if (run.passed && run.statusMasked) {
    return { icon: "⚠️", words: "exit 0, but from a command after it on the line, not its own" };
  }
  return { icon: run.passed ? "✅" : "❌", words: `exit ${run.exit}` };
}

const MAX_OUTPUTS = 3;

/**
 * The runs whose output a report shows: ones that failed, or whose status
 * is not their own; only the last of each command, and only the last few.
 */
export function runsWithOutput(runs: readonly CheckRun[]): CheckRun[] {
  const worthShowing = (run: CheckRun) =>
    (!run.passed || run.statusMasked) && run.exit !== "denied" && run.outputTail.trim() !== "";
  const shown = runs.filter(
    (run, at) =>
      worthShowing(run) &&
      !runs.slice(at + 1).some((later) => later.command === run.command && worthShowing(later)),
  );
  return shown.slice(-MAX_OUTPUTS);
}

/** Only `&&` after a check lets its failure through as the line's status (and `|` under pipefail). */
function isMasked(from: readonly CommandPart[], pipefail: boolean): boolean {
  return from.some(
    ({ next }) => next !== undefined && next !== "&&" && !(pipefail && next === "|"),
  );
}
