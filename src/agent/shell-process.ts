import { access, constants } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import { delimiter, join } from "node:path";
import type { Sandbox } from "../sandbox/sandbox.js";
import { type StreamedRun, streamInGroup } from "../spawner.js";
import { HeadTailBuffer } from "./tools/truncate.js";

/**
 * Runs one shell command in its sandbox, in its own process group, with a
 * timeout, capped output, no stdin and an explicit environment. The agent's
 * run_shell tool, the job's setup and verify steps and the dependency job's
 * install and test steps all run commands through here.
 */

export interface ShellProcessContext {
  cwd: string;
  env: Record<string, string>;
  signal: AbortSignal;
  sandbox: Sandbox;
}

export interface ShellProcessOptions {
  /** Time between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs?: number;
  /**
   * How long to wait for the output pipes to close after the shell exits;
   * a daemon that left the process group may hold them open forever.
   */
  closeGraceMs?: number;
  /** Characters kept per stream (head and tail). */
  maxStreamChars?: number;
  /** Sees all of the output as it arrives, both streams, before any is cut. */
  onOutput?: ((text: string) => void) | undefined;
  /** Host folders the command may write to besides the workspace (see SandboxRequest). */
  writable?: readonly string[] | undefined;
}

export async function findShell(path: string | undefined): Promise<string> {
  const dirs = [...(path ?? "").split(delimiter).filter(Boolean), "/bin", "/usr/bin"];
  for (const dir of dirs) {
    const candidate = join(dir, "bash");
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return "/bin/sh";
}

export interface ShellOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stoppedBy: "timeout" | "abort" | null;
  /** Processes the command left running in its group, killed when it returned. */
  leftovers: boolean;
  /** False when the run was cancelled before the command started (stoppedBy "abort"). */
  started: boolean;
}

export async function runShellProcess(
  shell: string,
  command: string,
  timeoutSeconds: number,
  ctx: ShellProcessContext,
  options: ShellProcessOptions = {},
): Promise<ShellOutcome> {
  // Nothing starts once the run is cancelled: a sandbox killed while it is
  // still being set up can leave its command running past the kill, which
  // then wrote into a workspace already cleaned up and parked for the next
  // job (a lockfile step started after a deploy's abort did exactly that).
  if (ctx.signal.aborted) return notStarted();
  const wrapped = await ctx.sandbox.wrap({
    argv: [shell, "-c", command],
    cwd: ctx.cwd,
    env: ctx.env,
    writable: options.writable,
  });
  if (ctx.signal.aborted) return notStarted();
  const killGraceMs = options.killGraceMs ?? 3000;
  const closeGraceMs = options.closeGraceMs ?? 1000;
  const stdout = new HeadTailBuffer(options.maxStreamChars ?? 30_000);
  const stderr = new HeadTailBuffer(options.maxStreamChars ?? 30_000);

  return new Promise((resolve, reject) => {
    let stoppedBy: ShellOutcome["stoppedBy"] = null;
    let leftovers = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    // Set below, before any of its events can come (they come on a later turn).
    let run: StreamedRun | undefined;

    const stop = (why: "timeout" | "abort"): void => {
      if (stoppedBy || exit) return;
      stoppedBy = why;
      run?.killGroup("SIGTERM");
      timers.push(setTimeout(() => run?.killGroup("SIGKILL"), killGraceMs));
    };
    const onAbort = (): void => stop("abort");
    const finish = (): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onAbort);
      resolve({
        code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        stoppedBy,
        leftovers,
        started: true,
      });
    };

    const onOutput = options.onOutput;
    // Its own process group, so a timeout can kill everything the command
    // started (in a sandbox, killing it ends its PID namespace too). Started
    // by the spawner's helper when it is up: a fork of this process (the
    // App's, hundreds of megabytes) costs its thread milliseconds per command.
    run = streamInGroup(
      wrapped.file,
      wrapped.args,
      { cwd: ctx.cwd, env: wrapped.env },
      {
        output: (stream, chunk) => {
          (stream === "stdout" ? stdout : stderr).push(chunk);
          onOutput?.(chunk.toString("utf8"));
        },
        error: (error) => {
          if (settled) return;
          settled = true;
          for (const timer of timers) clearTimeout(timer);
          ctx.signal.removeEventListener("abort", onAbort);
          reject(new Error(`could not start ${wrapped.file}: ${error.message}`));
        },
        exit: (code, signal) => {
          exit = { code, signal };
          if (run?.groupAlive()) {
            leftovers = stoppedBy === null;
            run.killGroup("SIGKILL");
          }
          timers.push(
            setTimeout(() => {
              run?.closePipes();
              finish();
            }, closeGraceMs),
          );
        },
        close: finish,
      },
    );
    timers.push(setTimeout(() => stop("timeout"), timeoutSeconds * 1000));
    ctx.signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** The outcome of a command that was never started: the run was cancelled first. */
function notStarted(): ShellOutcome {
  const empty = { code: null, signal: null, stdout: "", stderr: "" };
  return { ...empty, stoppedBy: "abort", leftovers: false, started: false };
}

/** The exit status as a shell reports it: the code, or 128 + signal number. */
export function describeExit(outcome: ShellOutcome): string {
  if (outcome.code !== null) return String(outcome.code);
  if (outcome.signal) {
    const number = osConstants.signals[outcome.signal];
    return `${128 + number} (killed by ${outcome.signal})`;
  }
  return "unknown";
}
