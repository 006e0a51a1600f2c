import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";

/**
 * Short-lived programs (git, above all) started by a small helper process
 * rather than by this one. On Linux, Node starts a child with a plain
 * fork(): the kernel copies this process's page tables, and this process
 * then takes a fault on each page it writes until the child has exec'ed. The
 * cost grows with this process's memory and is paid on its one JS thread:
 * measured on a 2-core VM, one `git rev-parse` from a 54 MB process cost its
 * thread 5 ms of CPU and took 10 ms; from a 206 MB one, 10 ms and 19 ms.
 * Through the helper (a bare Node of about 40 MB) the caller's part is an
 * IPC message, about 0.3 ms, and the round trip 12 ms at 206 MB.
 *
 * The helper starts on the first run and serves from its first "ready";
 * runs before that, and every run once it is gone, start here as before,
 * so a helper that cannot start costs nothing but the try. It holds no
 * state but the processes it runs, is given no environment of its own (each
 * run brings the exact one its program gets), ignores the signals that stop
 * this process (which may still need git as it stops), and exits when this
 * process does (its IPC channel closes). It never keeps this process alive
 * while idle.
 */

export interface GroupRunOptions {
  cwd: string;
  env: Record<string, string>;
  /** Bytes for the program's stdin (closed after them). */
  input?: Buffer | string | undefined;
}

export interface GroupRunResult {
  /** Null when a signal ended it. */
  code: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

export interface GroupRun {
  /** Sends a signal to the program and everything it started (its process group). */
  killGroup(signal: NodeJS.Signals): void;
  /** Once it has exited and its pipes are closed; rejects when it could not start (ENOENT...). */
  done: Promise<GroupRunResult>;
}

/**
 * Runs a program in its own process group with piped stdio, and collects
 * its output: through the helper when it is up, else directly.
 */
export function runInGroup(file: string, args: string[], options: GroupRunOptions): GroupRun {
  const helper = helperWanted ? currentHelper() : undefined;
  return helper?.ready ? helper.run(file, args, options) : runDirectly(file, args, options);
}

let helperWanted = true;

/** Whether runs may go through the helper (on by default); for measuring one way against the other. */
export function useSpawnHelper(wanted: boolean): void {
  helperWanted = wanted;
}

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

function killGroup(pid: number | undefined, signal: NodeJS.Signals) {
  try {
    if (pid) process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

function groupAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a streamed run reports, in this order: its output as it comes, its
 * exit, then the close of its pipes; or an error when it could not start
 * (or the helper running it went away).
 */
export interface StreamEvents {
  output(stream: "stdout" | "stderr", chunk: Buffer): void;
  error(error: Error): void;
  exit(code: number | null, signal: NodeJS.Signals | null): void;
  close(): void;
}

export interface StreamedRun {
  /** Sends a signal to the program and everything it started (its process group). */
  killGroup(signal: NodeJS.Signals): void;
  /** Whether anything of its process group still runs; known once it has exited. */
  groupAlive(): boolean;
  /** Stops waiting for its output: a daemon it left may hold its pipes open for good. */
  closePipes(): void;
}

/**
 * Runs a program in its own process group, no stdin, its output streamed
 * to `events` as it comes (a shell command's live progress): through the
 * helper when it is up, else directly. Its process group is this process's
 * to signal either way.
 */
export function streamInGroup(
  file: string,
  args: string[],
  options: Omit<GroupRunOptions, "input">,
  events: StreamEvents,
): StreamedRun {
  const helper = helperWanted ? currentHelper() : undefined;
  return helper?.ready
    ? helper.stream(file, args, options, events)
    : streamDirectly(file, args, options, events);
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

interface Helper {
  ready: boolean;
  run(file: string, args: string[], options: GroupRunOptions): GroupRun;
  stream(
    file: string,
    args: string[],
    options: Omit<GroupRunOptions, "input">,
    events: StreamEvents,
  ): StreamedRun;
}

/** The helper, started on first use; undefined once it failed or exited. */
let helper: Helper | undefined | null = null;

function currentHelper(): Helper | undefined {
  if (helper === null) helper = startHelper();
  return helper;
}

type Reply =
  | { ready: true }
  | {
      id: number;
      code?: number | null;
      stdout?: Uint8Array;
      stderr?: Uint8Array;
      error?: { message: string; code?: string; errno?: number; syscall?: string; path?: string };
      // A streamed run's messages: its pid once started, each chunk, its exit, the close of its pipes.
      pid?: number;
      chunk?: Uint8Array;
      stream?: "stdout" | "stderr";
      exit?: { code: number | null; signal: NodeJS.Signals | null };
      closed?: true;
    };

type RunReply = Exclude<Reply, { ready: true }>;

function errorOf(reply: NonNullable<RunReply["error"]>): Error {
  const { message, ...fields } = reply;
  return Object.assign(new Error(message), fields);
}

function startHelper(): Helper | undefined {
  let child: ChildProcess;
  try {
    // Its scratch folder goes where this process's do (TMPDIR), where the sweep looks for it.
    child = spawn(process.execPath, ["-e", HELPER_SOURCE, tmpdir()], {
      // Nothing of this process's environment (NODE_OPTIONS, loaders, secrets): each run brings its own.
      env: {},
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      serialization: "advanced",
    });
  } catch {
    return undefined;
  }
  // Each run's reader of its replies, which says when the run is over.
  const pending = new Map<number, (reply: RunReply) => "done" | "more">();
  let nextId = 0;
  // Held only while runs are under way: an idle helper never keeps this process alive.
  const hold = (on: boolean) => {
    if (on) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  };
  const track = (id: number, read: (reply: RunReply) => "done" | "more") => {
    pending.set(id, read);
    if (pending.size === 1) hold(true);
  };
  const self: Helper = {
    ready: false,
    run(file, args, options) {
      const id = nextId++;
      const done = new Promise<GroupRunResult>((resolve, reject) => {
        track(id, (reply) => {
          if (reply.error) reject(errorOf(reply.error));
          else
            resolve({
              code: reply.code ?? null,
              stdout: toBuffer(reply.stdout),
              stderr: toBuffer(reply.stderr),
            });
          return "done";
        });
      });
      child.send({ id, file, args, cwd: options.cwd, env: options.env, input: options.input });
      return {
        killGroup: (signal) => {
          if (pending.has(id)) child.send({ kill: id, signal });
        },
        done,
      };
    },
    stream(file, args, options, events) {
      const id = nextId++;
      let pid: number | undefined;
      track(id, (reply) => {
        if (reply.error) {
          events.error(errorOf(reply.error));
          return "done";
        }
        if (reply.pid !== undefined) pid = reply.pid;
        else if (reply.chunk && reply.stream) events.output(reply.stream, toBuffer(reply.chunk));
        else if (reply.exit) events.exit(reply.exit.code, reply.exit.signal);
        else if (reply.closed) {
          events.close();
          return "done";
        }
        return "more";
      });
      child.send({ id, stream: true, file, args, cwd: options.cwd, env: options.env });
      return {
        // Its group is signalled from here once its pid is known: no round trip on a timeout.
        killGroup: (signal) => {
          if (pid !== undefined) killGroup(pid, signal);
          else if (pending.has(id)) child.send({ kill: id, signal });
        },
        groupAlive: () => groupAlive(pid),
        closePipes: () => {
          if (pending.has(id)) child.send({ closePipes: id });
        },
      };
    },
  };
  const gone = () => {
    if (helper === self) helper = undefined;
    self.ready = false;
    const left = [...pending.values()];
    pending.clear();
    for (const read of left)
      read({ id: -1, error: { message: "the process helper exited before the program finished" } });
  };
  child.on("error", gone);
  child.on("exit", gone);
  child.on("message", (reply: Reply) => {
    if ("ready" in reply) {
      self.ready = true;
      return;
    }
    const read = pending.get(reply.id);
    if (!read || read(reply) === "more") return;
    pending.delete(reply.id);
    if (pending.size === 0) hold(false);
  });
  hold(false);
  return self;
}

function toBuffer(bytes: Uint8Array | undefined): Buffer {
  return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : Buffer.alloc(0);
}

/**
 * The helper's whole program (CommonJS, given with -e: no file to ship or
 * find, the same under the bundle, the build and tsx). It does what
 * runDirectly does, its own group per program and the output collected,
 * more cheaply: stdout and stderr go to files, and stdin is /dev/null when
 * there is no input. Node's three pipe streams were a third of the helper's
 * CPU per run (measured on the 2-core VM, `git --version`: 5.3 ms piped,
 * 3.7 ms so).
 */
const HELPER_SOURCE = `
const { spawn } = require("node:child_process");
const { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync } = require("node:fs");
const { join } = require("node:path");
// Output files are read once the program has ended, and unlinked as soon as
// they are open: nothing is left behind but the folder, removed at the end.
// The scratch prefix (scratch.ts), so a helper killed with its process is swept too.
const folder = mkdtempSync(join(process.argv[1], "patchwright-tmp-spawner-" + process.pid + "-"));
let files = 0;
const openOutput = () => {
  const path = join(folder, String(files++));
  const fd = openSync(path, "w+");
  unlinkSync(path);
  return fd;
};
// Read at explicit positions: the program shared this descriptor's offset and left it at the end.
const readOutput = (fd) => {
  const bytes = Buffer.allocUnsafe(fstatSync(fd).size);
  let at = 0;
  while (at < bytes.length) {
    const read = readSync(fd, bytes, at, bytes.length - at, at);
    if (read === 0) break;
    at += read;
  }
  closeSync(fd);
  return bytes.subarray(0, at);
};
const running = new Map();
process.on("message", (m) => {
  if (m.kill !== undefined) {
    const pid = running.get(m.kill)?.pid;
    try { if (pid) process.kill(-pid, m.signal); } catch {}
    return;
  }
  if (m.closePipes !== undefined) {
    const child = running.get(m.closePipes);
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    return;
  }
  if (m.stream) return stream(m);
  let out;
  let err;
  try {
    out = openOutput();
    err = openOutput();
  } catch {
    // No room for the files (a full or read-only disk): pipes, as runDirectly.
    for (const fd of [out, err]) if (fd !== undefined) closeSync(fd);
    out = err = undefined;
  }
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: [m.input === undefined ? "ignore" : "pipe", out ?? "pipe", err ?? "pipe"], detached: true });
  } catch (e) {
    for (const fd of [out, err]) if (fd !== undefined) closeSync(fd);
    process.send({ id: m.id, error: { message: e.message, code: e.code } });
    return;
  }
  running.set(m.id, child);
  const piped = { out: [], err: [] };
  child.stdout?.on("data", (c) => piped.out.push(c));
  child.stderr?.on("data", (c) => piped.err.push(c));
  let failed;
  child.on("error", (e) => {
    failed ??= { message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, path: e.path };
  });
  child.on("close", (code) => {
    running.delete(m.id);
    const stdout = out === undefined ? Buffer.concat(piped.out) : readOutput(out);
    const stderr = err === undefined ? Buffer.concat(piped.err) : readOutput(err);
    process.send(failed ? { id: m.id, error: failed } : { id: m.id, code, stdout, stderr });
  });
  // Without input, stdin is /dev/null: the same end of file as a pipe closed at once.
  child.stdin?.on("error", () => {});
  child.stdin?.end(m.input);
});
// A streamed run (a shell command's live output): pipes, each chunk sent on as it comes.
const stream = (m) => {
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  } catch (e) {
    process.send({ id: m.id, error: { message: e.message, code: e.code } });
    return;
  }
  running.set(m.id, child);
  if (child.pid !== undefined) process.send({ id: m.id, pid: child.pid });
  child.stdout.on("data", (chunk) => process.send({ id: m.id, stream: "stdout", chunk }));
  child.stderr.on("data", (chunk) => process.send({ id: m.id, stream: "stderr", chunk }));
  let failed = false;
  child.on("error", (e) => {
    if (failed) return;
    failed = true;
    running.delete(m.id);
    process.send({ id: m.id, error: { message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, path: e.path } });
  });
  child.on("exit", (code, signal) => { if (!failed) process.send({ id: m.id, exit: { code, signal } }); });
  child.on("close", () => {
    running.delete(m.id);
    if (!failed) process.send({ id: m.id, closed: true });
  });
};
// Ctrl+C reaches the whole foreground group, and a service manager may signal
// every process: the caller decides how to stop and may still need git then.
// The helper ends when the caller has (its channel closes).
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) process.on(signal, () => {});
process.on("disconnect", () => { rmSync(folder, { recursive: true, force: true }); process.exit(0); });
process.send({ ready: true });
`;
