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

interface Helper {
  ready: boolean;
  run(file: string, args: string[], options: GroupRunOptions): GroupRun;
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
    };

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
  const pending = new Map<
    number,
    { resolve: (result: GroupRunResult) => void; reject: (error: Error) => void }
  >();
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
  const self: Helper = {
    ready: false,
    run(file, args, options) {
      const id = nextId++;
      const done = new Promise<GroupRunResult>((resolve, reject) => {
        pending.set(id, { resolve, reject });
      });
      if (pending.size === 1) hold(true);
      child.send({ id, file, args, cwd: options.cwd, env: options.env, input: options.input });
      return {
        killGroup: (signal) => {
          if (pending.has(id)) child.send({ kill: id, signal });
        },
        done,
      };
    },
  };
  const gone = () => {
    if (helper === self) helper = undefined;
    self.ready = false;
    for (const { reject } of pending.values())
      reject(new Error("the process helper exited before the program finished"));
    pending.clear();
  };
  child.on("error", gone);
  child.on("exit", gone);
  child.on("message", (reply: Reply) => {
    if ("ready" in reply) {
      self.ready = true;
      return;
    }
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if (pending.size === 0) hold(false);
    if (reply.error) {
      const { message, ...fields } = reply.error;
      waiting.reject(Object.assign(new Error(message), fields));
      return;
    }
    waiting.resolve({
      code: reply.code ?? null,
      stdout: toBuffer(reply.stdout),
      stderr: toBuffer(reply.stderr),
    });
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
// Ctrl+C reaches the whole foreground group, and a service manager may signal
// every process: the caller decides how to stop and may still need git then.
// The helper ends when the caller has (its channel closes).
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) process.on(signal, () => {});
process.on("disconnect", () => { rmSync(folder, { recursive: true, force: true }); process.exit(0); });
process.send({ ready: true });
`;
