import { spawn } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import { delimiter, join } from "node:path";
import { z } from "zod";
import { defineTool, type ToolContext, ToolError } from "./define-tool.js";
import { HeadTailBuffer } from "./truncate.js";

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const MAX_TIMEOUT_SECONDS = 600;

export interface RunShellOptions {
  /** Time between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs?: number;
  /**
   * How long to wait for the output pipes to close after the shell exits;
   * a daemon that left the process group may hold them open forever.
   */
  closeGraceMs?: number;
  /** Characters kept per stream (head and tail). */
  maxStreamChars?: number;
  /** Shell to run commands with; default bash from PATH, else /bin/sh. */
  shell?: string;
}

const input = z.object({
  command: z.string().min(1).describe('The shell command to run (bash syntax), e.g. "npm test"'),
  timeout: z
    .number()
    .positive()
    .max(MAX_TIMEOUT_SECONDS)
    .optional()
    .describe(
      `Timeout in seconds (default ${DEFAULT_TIMEOUT_SECONDS}, max ${MAX_TIMEOUT_SECONDS})`,
    ),
});

export function createRunShellTool(options: RunShellOptions = {}) {
  return defineTool({
    name: "run_shell",
    description: [
      "Runs a shell command with bash in the workspace root and returns its exit code, stdout and stderr.",
      "Use it to build, run tests, or inspect the repository (e.g. git status, git log).",
      "It is non-interactive: stdin is closed, so commands that prompt fail; pass flags like --yes.",
      "The environment holds no credentials. Background processes are stopped when the command returns,",
      `so start and use a server within one command. Default timeout ${DEFAULT_TIMEOUT_SECONDS}s, max ${MAX_TIMEOUT_SECONDS}s.`,
      "Prefer read_file, list_files and grep_search over cat, find and grep.",
    ].join(" "),
    input,
    summarize: (args) => `run_shell ${firstLine(args.command)}`,
    async run(args, ctx) {
      if (ctx.signal.aborted)
        throw new ToolError("the run was cancelled before the command started");
      const shell = options.shell ?? (await findShell(ctx.env.PATH));
      const timeout = args.timeout ?? DEFAULT_TIMEOUT_SECONDS;
      const outcome = await ctx.trackChanges(() =>
        runProcess(shell, args.command, timeout, ctx, options),
      );
      return formatOutcome(outcome, timeout);
    },
  });
}

export const runShellTool = createRunShellTool();

function firstLine(command: string): string {
  const line = command.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 80)}...` : line;
}

async function findShell(path: string | undefined): Promise<string> {
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

interface ShellOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stoppedBy: "timeout" | "abort" | null;
  /** Processes the command left running in its group, killed when it returned. */
  leftovers: boolean;
}

function runProcess(
  shell: string,
  command: string,
  timeoutSeconds: number,
  ctx: ToolContext,
  options: RunShellOptions,
): Promise<ShellOutcome> {
  const killGraceMs = options.killGraceMs ?? 3000;
  const closeGraceMs = options.closeGraceMs ?? 1000;
  const stdout = new HeadTailBuffer(options.maxStreamChars ?? 30_000);
  const stderr = new HeadTailBuffer(options.maxStreamChars ?? 30_000);

  return new Promise((resolve, reject) => {
    // Its own process group, so a timeout can kill everything the command started.
    const child = spawn(shell, ["-c", command], {
      cwd: ctx.root,
      env: ctx.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const pid = child.pid;
    let stoppedBy: ShellOutcome["stoppedBy"] = null;
    let leftovers = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const killGroup = (signal: NodeJS.Signals): void => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const stop = (why: "timeout" | "abort"): void => {
      if (stoppedBy || exit) return;
      stoppedBy = why;
      killGroup("SIGTERM");
      timers.push(setTimeout(() => killGroup("SIGKILL"), killGraceMs));
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
      });
    };

    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onAbort);
      reject(new ToolError(`could not start ${shell}: ${error.message}`));
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      if (pid !== undefined && groupAlive(pid)) {
        leftovers = stoppedBy === null;
        killGroup("SIGKILL");
      }
      timers.push(
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finish();
        }, closeGraceMs),
      );
    });
    child.on("close", finish);
    timers.push(setTimeout(() => stop("timeout"), timeoutSeconds * 1000));
    ctx.signal.addEventListener("abort", onAbort, { once: true });
  });
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function formatOutcome(outcome: ShellOutcome, timeoutSeconds: number): string {
  const lines: string[] = [];
  if (outcome.stoppedBy === "timeout") {
    lines.push(
      `timed out after ${timeoutSeconds}s; the command and every process it started were killed`,
    );
  } else if (outcome.stoppedBy === "abort") {
    lines.push(
      "aborted: the run was cancelled; the command and every process it started were killed",
    );
  }
  lines.push(`exit code: ${exitCode(outcome)}`);
  if (outcome.leftovers) {
    lines.push("note: processes the command left running in the background were stopped");
  }
  if (outcome.stdout) lines.push("stdout:", outcome.stdout.replace(/\n$/, ""));
  if (outcome.stderr) lines.push("stderr:", outcome.stderr.replace(/\n$/, ""));
  if (!outcome.stdout && !outcome.stderr) lines.push("(no output)");
  return lines.join("\n");
}

function exitCode(outcome: ShellOutcome): string {
  if (outcome.code !== null) return String(outcome.code);
  if (outcome.signal) {
    const number = osConstants.signals[outcome.signal];
    return `${128 + number} (killed by ${outcome.signal})`;
  }
  return "unknown";
}
