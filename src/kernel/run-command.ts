import { describeExit, findShell, runShellProcess } from "../agent/shell-process.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { watchCommandNetwork } from "./network-watch.js";

/** The result of the repository's own check (its test command), as reported in the PR. */
export interface CommandResult {
  command: string;
  passed: boolean;
  /** Exit code, or `143 (killed by SIGTERM)` style when it was stopped. */
  exit: string;
  timedOut: boolean;
  durationMs: number;
  /** The end of the output, where test runners put their summary. */
  outputTail: string;
  /** A network failure seen while it ran (in its output or npm's log), described, when it failed. */
  networkTrouble?: string | undefined;
}

export interface RunCommandOptions {
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
  /** The config key that sets this sandbox's network, named in network failures (default `network`). */
  networkSetting?: string | undefined;
  /** Each kind of network failure, described, as soon as it is seen. */
  onNetworkTrouble?: ((description: string) => void) | undefined;
}

const DEFAULT_TIMEOUT_SECONDS = 15 * 60;
const DEFAULT_TAIL_CHARS = 4_000;

/** Runs the configured verify command in the workspace and keeps its result. */
export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const started = options.clock.now();
  const shell = await findShell(options.env.PATH);
  const watch = await watchCommandNetwork({
    network: options.sandbox.network,
    setting: options.networkSetting ?? "network",
    onTrouble: options.onNetworkTrouble,
  });
  const outcome = await runShellProcess(
    shell,
    options.command,
    options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    {
      cwd: options.cwd,
      env: { ...options.env, ...watch.env },
      signal: options.signal,
      sandbox: options.sandbox,
    },
    {
      maxStreamChars: options.tailChars ?? DEFAULT_TAIL_CHARS,
      onOutput: watch.onOutput,
      writable: watch.writable,
    },
  ).finally(() => watch.stop());
  const networkTrouble = await watch.stop();
  const output = [outcome.stdout, outcome.stderr].filter(Boolean).join("\n").trimEnd();
  const tailChars = options.tailChars ?? DEFAULT_TAIL_CHARS;
  const passed = outcome.code === 0 && outcome.stoppedBy === null;
  return {
    command: options.command,
    passed,
    exit: describeExit(outcome),
    timedOut: outcome.stoppedBy === "timeout",
    durationMs: options.clock.now() - started,
    outputTail: output.length > tailChars ? output.slice(-tailChars) : output,
    // A failure a passing command got past (a retry that worked) is no news.
    ...(networkTrouble && !passed ? { networkTrouble } : {}),
  };
}
