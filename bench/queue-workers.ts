import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FromWorker, ToWorker } from "./queue-worker.js";

/**
 * The queue benchmark's worker processes (queue-worker.ts, forked with tsx)
 * as seen from the parent: what they said, and a way to wait for it.
 */

type Message<T extends FromWorker["type"]> = Extract<FromWorker, { type: T }>;

export interface WorkerProcess {
  send(message: ToWorker): void;
  /**
   * Resolves with the next message of this type (kept until asked for);
   * rejects if the process exits first, or after `timeoutMs`.
   */
  next<T extends FromWorker["type"]>(type: T, timeoutMs?: number): Promise<Message<T>>;
  /** Every message of this type so far, taken out of the inbox. */
  take<T extends FromWorker["type"]>(type: T): Array<Message<T>>;
  exited: Promise<number | null>;
  kill(): void;
}

const ENTRY = fileURLToPath(new URL("./queue-worker.ts", import.meta.url));

export function forkWorker(env: Record<string, string>, nodeFlags: string[] = []): WorkerProcess {
  const child: ChildProcess = fork(ENTRY, [], {
    execArgv: ["--import", "tsx", ...nodeFlags],
    env,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const inbox: FromWorker[] = [];
  let alive = true;
  const exited = new Promise<number | null>((done) =>
    child.once("exit", (code) => {
      alive = false;
      done(code);
    }),
  );
  child.on("message", (message: FromWorker) => inbox.push(message));
  const take = <T extends FromWorker["type"]>(type: T) => {
    const found = inbox.filter((m): m is Message<T> => m.type === type);
    inbox.splice(0, inbox.length, ...inbox.filter((m) => m.type !== type));
    return found;
  };
  return {
    send: (message) => child.send(message),
    take,
    next: (type, timeoutMs = 120_000) =>
      new Promise((done, fail) => {
        const timer = setTimeout(() => {
          cleanup();
          fail(new Error(`a queue worker did not say "${type}" within ${timeoutMs / 1000} s`));
        }, timeoutMs);
        const check = () => {
          const index = inbox.findIndex((m) => m.type === type);
          if (index < 0) return false;
          cleanup();
          done(inbox.splice(index, 1)[0] as Message<typeof type>);
          return true;
        };
        const onExit = (code: number | null) => {
          if (check()) return;
          cleanup();
          fail(
            new Error(`a queue worker exited (${code}) while the benchmark waited for "${type}"`),
          );
        };
        const cleanup = () => {
          clearTimeout(timer);
          child.off("message", check);
          child.off("exit", onExit);
        };
        if (check()) return;
        if (!alive) return onExit(child.exitCode);
        child.on("message", check);
        child.on("exit", onExit);
      }),
    exited,
    kill: () => {
      if (alive) child.kill("SIGKILL");
    },
  };
}

/** Polls `count()` every 10 ms until it reaches `target`; fails if a worker dies or time runs out. */
export async function waitCount(
  count: () => number,
  target: number,
  workers: WorkerProcess[],
  what: string,
  timeoutMs = 120_000,
): Promise<void> {
  let dead = false;
  for (const worker of workers) void worker.exited.then(() => (dead = true));
  const deadline = performance.now() + timeoutMs;
  while (count() < target) {
    if (dead) throw new Error(`a queue worker exited while the benchmark waited for ${what}`);
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}

/** `promise`, or a rejection naming `what` after `ms`: a stuck step fails the benchmark instead of hanging it. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`timed out after ${ms / 1000} s: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
