import { execFileSync, spawn } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, readSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The tests' synchronous git fixtures (`git()` in git-repos.ts and
 * temp-dir.ts, a tool context's `git`, the Git Data API fake's in
 * fake-github-upkeep.ts), run by a small helper process
 * instead of a fork of the test worker. A worker holds a few hundred MB
 * (every file's modules, isolate: false), and Node starts a child with a
 * plain fork(): the kernel copies the worker's page tables, and the worker
 * then faults on each page it writes (src/spawner.ts says the same for the
 * product's git). Measured on the 2-core VM from a 285 MB process, `git
 * --version` 200 times: 8.3-10.3 ms a call and 3.7-4.7 ms of the caller's
 * CPU with execFileSync, 2.7-2.8 ms and 0.1 ms through the helper; a run
 * makes about 1,600 such calls.
 *
 * The calls stay synchronous: requests go down one named pipe and answers
 * come up another, read with a blocking read. The helper runs one program
 * at a time (a worker's thread waits for each), exits when the worker has
 * gone (its end of the request pipe closes), and removes its folder then.
 * Where it cannot start (no mkfifo, say), calls run as execFileSync.
 */

export interface SyncRunOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  /** Bytes for the program's stdin (closed after them). */
  input?: Buffer | string | undefined;
}

/** What execFileSync throws for a program that failed, with the same fields. */
export class SyncRunError extends Error {
  constructor(
    command: string,
    readonly status: number | null,
    readonly signal: string | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`Command failed: ${command}\n${stderr}`);
    this.name = "SyncRunError";
  }
}

/** A program's stdout (utf8); throws SyncRunError when it fails. */
export function runSync(file: string, args: string[], options: SyncRunOptions): string {
  const channel = helper();
  if (!channel) {
    return execFileSync(file, args, {
      cwd: options.cwd,
      env: options.env,
      encoding: "utf8",
      stdio: ["pipe", "pipe", "pipe"],
      maxBuffer: Number.POSITIVE_INFINITY,
      ...(options.input !== undefined ? { input: options.input } : {}),
    });
  }
  const input =
    options.input === undefined ? undefined : Buffer.from(options.input).toString("base64");
  send(channel.request, { file, args, cwd: options.cwd, env: options.env, input });
  const reply = receive(channel.answer);
  const command = [file, ...args].join(" ");
  if (reply.error) {
    throw Object.assign(new Error(`spawnSync ${file} ${reply.error.code ?? reply.error.message}`), {
      code: reply.error.code,
    });
  }
  const stdout = Buffer.from(reply.stdout ?? "", "base64").toString("utf8");
  const stderr = Buffer.from(reply.stderr ?? "", "base64").toString("utf8");
  if (reply.status !== 0) {
    throw new SyncRunError(command, reply.status ?? null, reply.signal ?? null, stdout, stderr);
  }
  return stdout;
}

interface Reply {
  status?: number | null;
  signal?: string | null;
  stdout?: string;
  stderr?: string;
  error?: { message: string; code?: string };
}

interface Channel {
  request: number;
  answer: number;
}

let channel: Channel | null | undefined;

function helper(): Channel | null {
  if (channel === undefined) {
    try {
      channel = startHelper();
    } catch {
      channel = null;
    }
  }
  return channel;
}

/** Sleeps this thread (the helper is starting, or has not read the last bytes yet). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function startHelper(): Channel | null {
  const dir = mkdtempSync(join(tmpdir(), "pw-sync-spawn-"));
  const requests = join(dir, "requests");
  const answers = join(dir, "answers");
  execFileSync("mkfifo", [requests, answers]);
  const child = spawn(process.execPath, ["-e", HELPER_SOURCE, requests, answers, dir], {
    env: {},
    stdio: ["ignore", "ignore", "inherit"],
  });
  child.on("error", () => {});
  child.unref();
  // Opening a pipe's writing end waits for a reader; without blocking, this
  // fails until the helper has opened it, so a helper that never starts
  // costs five seconds once rather than the worker.
  let request: number | undefined;
  for (let waited = 0; request === undefined && waited < 5_000; waited += 5) {
    try {
      request = openSync(requests, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch {
      if (child.exitCode !== null) break;
      pause(5);
    }
  }
  if (request === undefined) {
    child.kill();
    return null;
  }
  // The helper opens the answers next.
  return { request, answer: openSync(answers, "r") };
}

function send(fd: number, message: unknown): void {
  const body = Buffer.from(JSON.stringify(message));
  const all = Buffer.alloc(4 + body.length);
  all.writeUInt32LE(body.length);
  body.copy(all, 4);
  for (let at = 0; at < all.length; ) {
    try {
      at += writeSync(fd, all, at);
    } catch (error) {
      // The pipe is full (its end does not block): the helper is reading.
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      pause(1);
    }
  }
}

function receive(fd: number): Reply {
  const length = readExactly(fd, 4).readUInt32LE(0);
  return JSON.parse(readExactly(fd, length).toString("utf8")) as Reply;
}

function readExactly(fd: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let at = 0; at < length; ) {
    const read = readSync(fd, bytes, at, length - at, null);
    if (read === 0) {
      // Gone mid-call: whether the program ran is unknown, so it is not run again.
      closeSync(fd);
      channel = null;
      throw new Error("the tests' sync-spawn helper ended during a call");
    }
    at += read;
  }
  return bytes;
}

/** The helper's whole program (CommonJS, given with -e). */
const HELPER_SOURCE = `
const fs = require("node:fs");
const { spawn } = require("node:child_process");
const [requests, answers, dir] = process.argv.slice(1);
const input = fs.openSync(requests, "r");
const output = fs.openSync(answers, "w");
const answer = (reply) => {
  const body = Buffer.from(JSON.stringify(reply));
  const all = Buffer.alloc(4 + body.length);
  all.writeUInt32LE(body.length);
  body.copy(all, 4);
  for (let at = 0; at < all.length; ) at += fs.writeSync(output, all, at);
};
const run = (m) => {
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: ["pipe", "pipe", "pipe"] });
  } catch (e) {
    answer({ error: { message: e.message, code: e.code } });
    return;
  }
  const out = [];
  const err = [];
  let failed;
  child.stdout.on("data", (c) => out.push(c));
  child.stderr.on("data", (c) => err.push(c));
  child.on("error", (e) => { failed ??= { message: e.message, code: e.code }; });
  child.stdin.on("error", () => {});
  child.stdin.end(m.input === undefined ? undefined : Buffer.from(m.input, "base64"));
  child.on("close", (status, signal) => answer(failed ? { error: failed } : {
    status, signal,
    stdout: Buffer.concat(out).toString("base64"),
    stderr: Buffer.concat(err).toString("base64"),
  }));
};
let pending = Buffer.alloc(0);
const stream = fs.createReadStream("", { fd: input, highWaterMark: 1 << 16 });
stream.on("data", (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 4) {
    const length = pending.readUInt32LE(0);
    if (pending.length < 4 + length) break;
    run(JSON.parse(pending.subarray(4, 4 + length).toString("utf8")));
    pending = pending.subarray(4 + length);
  }
});
// The worker has gone.
stream.on("end", () => { fs.rmSync(dir, { recursive: true, force: true }); process.exit(0); });
`;
