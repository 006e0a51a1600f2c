import { codeBlock, details, inlineCode, plural, tail } from "../github/markdown.js";
import { type CheckRun, checkStatus, runsWithOutput } from "./checks.js";

/**
 * What was run to check a change, as the PR body and the tracking comment
 * say it: the agent's own check commands with their exit status, from the
 * tool log, then the configured verify command. Never the model's account
 * of them; that is quoted apart, as its claim.
 */

interface VerifySummary {
  command: string;
  passed: boolean;
  /** Exit code, or `143 (killed by SIGTERM)` style. */
  exit: string;
  outputTail: string;
  /** A network failure seen while it ran, described. */
  networkTrouble?: string | undefined;
}

export interface CheckFacts {
  /**
   * The agent's check commands (`checksRun` of the job's commands). Absent
   * when the caller has not collected them: then nothing is said about them.
   */
  checks?: readonly CheckRun[] | undefined;
  verify?: VerifySummary | undefined;
}

const MAX_RUNS_LISTED = 30;
const MAX_OUTPUT_CHARS = 3_000;
const MAX_CHECK_OUTPUT_CHARS = 1_500;

const NOTHING_RUN =
  "⚠️ **Nothing was run to check this change:** the agent ran no tests, linters, type checks or builds, and no `verify` command ran.";

export function renderChecks(facts: CheckFacts): string {
  const { checks, verify } = facts;
  if (checks?.length === 0 && !verify) return NOTHING_RUN;
  const parts: string[] = [];
  if (checks?.length) {
    parts.push("**Run by the agent**, in order:", renderCheckRuns(checks));
    parts.push(...runsWithOutput(checks).map(renderCheckOutput));
  } else if (checks) {
    parts.push("The agent ran no tests, linters, type checks or builds itself.");
  }
  if (verify) {
    parts.push("**Verify**, the configured command, run after the agent:", renderVerify(verify));
  } else if (checks?.length) {
    parts.push("No `verify` command ran after the agent.");
  }
  return parts.join("\n\n");
}

function renderCheckRuns(runs: readonly CheckRun[]): string {
  const shown = runs.slice(-MAX_RUNS_LISTED);
  const lines = shown.map((run) => {
    const status = checkStatus(run);
    return `- ${status.icon} ${inlineCode(run.command)} — ${status.words}`;
  });
  const earlier = runs.slice(0, runs.length - shown.length);
  if (earlier.length > 0) {
    const failed = earlier.filter((run) => !run.passed).length;
    lines.unshift(
      `- _${plural(earlier.length, "earlier run")} not listed, ${failed} of them failed_`,
    );
  }
  return lines.join("\n");
}

function renderCheckOutput(run: CheckRun): string {
  const command = run.command.replace(/\s+/g, " ").trim();
  const name = command.length > 80 ? `${command.slice(0, 79)}…` : command;
  const output = codeBlock(tail(run.outputTail.trimEnd(), MAX_CHECK_OUTPUT_CHARS), "text");
  return details(`Output of ${name} (exit ${run.exit}, last lines)`, output);
}

function renderVerify(verify: VerifySummary): string {
  const command = inlineCode(verify.command);
  const exit = verify.exit.replace(/\s+/g, " ");
  const verdict = verify.passed ? `✅ ${command} passed` : `❌ ${command} failed (exit ${exit})`;
  const line = verify.networkTrouble ? `${verdict}\n\n⚠️ ${verify.networkTrouble}` : verdict;
  if (!verify.outputTail.trim()) return line;
  const output = codeBlock(tail(verify.outputTail.trimEnd(), MAX_OUTPUT_CHARS), "text");
  return `${line}\n\n${details("Output (last lines)", output)}`;
}
