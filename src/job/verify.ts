import { describeExit, findShell, runShellProcess } from "../agent/shell-process.js";
import type { Sandbox } from "../sandbox/sandbox.js";

/** The result of the repository's own check (its test command), as reported in the PR. */
export interface VerifyResult {
  command: string;
  passed: boolean;
  /** Exit code, or `143 (killed by SIGTERM)` style when it was stopped. */
  exit: string;
  timedOut: boolean;
  durationMs: number;
  /** The end of the output, where test runners put their summary. */
  outputTail: string;
}

export interface VerifyOptions {
  command: string;
  cwd: string;
  /** Scrubbed environment, as the agent's shell gets: the check is the repo's code too. */
  env: Record<string, string>;
  /** And so it runs in the workspace's sandbox. */
  sandbox: Sandbox;
  signal: AbortSignal;
  clock: { now(): number };
  timeoutSeconds?: number | undefined;
  tailChars?: number;
}

const DEFAULT_TIMEOUT_SECONDS = 15 * 60;
const DEFAULT_TAIL_CHARS = 4_000;

/** Runs the configured verify command in the workspace and keeps its result. */
export async function runVerify(options: VerifyOptions): Promise<VerifyResult> {
  const started = options.clock.now();
  const shell = await findShell(options.env.PATH);
  const outcome = await runShellProcess(
    shell,
    options.command,
    options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    { cwd: options.cwd, env: options.env, signal: options.signal, sandbox: options.sandbox },
    { maxStreamChars: options.tailChars ?? DEFAULT_TAIL_CHARS },
  );
  const output = [outcome.stdout, outcome.stderr].filter(Boolean).join("\n").trimEnd();
  const tailChars = options.tailChars ?? DEFAULT_TAIL_CHARS;
  return {
    command: options.command,
    passed: outcome.code === 0 && outcome.stoppedBy === null,
    exit: describeExit(outcome),
    timedOut: outcome.stoppedBy === "timeout",
    durationMs: options.clock.now() - started,
    outputTail: output.length > tailChars ? output.slice(-tailChars) : output,
  };
}
