import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { groupAlive, killGroup } from "./direct.js";
import { HELPER_SOURCE } from "./helper-program.js";
import type {
  GroupRun,
  GroupRunOptions,
  GroupRunResult,
  StreamEvents,
  StreamedRun,
} from "./types.js";

/** This process's side of the helper (helper-program.ts is the other): requests out, replies in. */

export interface Helper {
  ready: boolean;
  run(file: string, args: string[], options: GroupRunOptions): GroupRun;
  stream(
    file: string,
    args: string[],
    options: Omit<GroupRunOptions, "input">,
    events: StreamEvents,
  ): StreamedRun;
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

/**
 * Starts the helper; undefined when it cannot start. `onGone` hears when it
 * exits: runs still under way are failed, and later ones start directly.
 */
export function startHelper(onGone: (helper: Helper) => void): Helper | undefined {
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
    onGone(self);
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
