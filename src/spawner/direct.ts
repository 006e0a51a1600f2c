import { type ChildProcess, spawn } from "node:child_process";
import type {
  GroupRun,
  GroupRunOptions,
  GroupRunResult,
  StreamEvents,
  StreamedRun,
} from "./types.js";

/** Programs started by this process itself: where the helper is off, not up yet, or gone. */

export function runDirectly(file: string, args: string[], options: GroupRunOptions): GroupRun {
  let child: ChildProcess | undefined;
  const done = new Promise<GroupRunResult>((resolve, reject) => {
    child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      // /dev/null without input, as in the helper: the same end of file as an
      // empty pipe, and one pipe less to make (about 0.9 ms of this thread a
      // run at the Action's size, measured on Node 24 on the 2-core VM).
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: true,
    });
    collect(child, options.input, resolve, reject);
  });
  return {
    killGroup: (signal) => killGroup(child?.pid, signal),
    done,
  };
}

function collect(
  child: ChildProcess,
  input: Buffer | string | undefined,
  resolve: (result: GroupRunResult) => void,
  reject: (error: Error) => void,
) {
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
  // A program that could not start is an error event, then a close: the error wins.
  child.on("error", reject);
  child.on("close", (code) =>
    resolve({ code, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) }),
  );
  // EPIPE when the program exits without reading its input is reported through its exit code instead.
  child.stdin?.on("error", () => {});
  child.stdin?.end(input);
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals) {
  try {
    if (pid) process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

export function groupAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function streamDirectly(
  file: string,
  args: string[],
  options: Omit<GroupRunOptions, "input">,
  events: StreamEvents,
): StreamedRun {
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout.on("data", (chunk: Buffer) => events.output("stdout", chunk));
  child.stderr.on("data", (chunk: Buffer) => events.output("stderr", chunk));
  // A program that could not start is an error, and nothing after it (as from the helper).
  let failed = false;
  child.on("error", (error) => {
    if (failed) return;
    failed = true;
    events.error(error);
  });
  child.on("exit", (code, signal) => {
    if (!failed) events.exit(code, signal);
  });
  child.on("close", () => {
    if (!failed) events.close();
  });
  return {
    killGroup: (signal) => killGroup(child.pid, signal),
    groupAlive: () => groupAlive(child.pid),
    closePipes: () => {
      child.stdout.destroy();
      child.stderr.destroy();
    },
  };
}
