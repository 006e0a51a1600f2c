import type { Model } from "../../src/agent/model/model.js";
import type { CliIo } from "../../src/cli/cli-io.js";
import { main } from "../../src/cli/main.js";

export interface FakeRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface FakeIoOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** stderr claims to be a terminal (the status line draws). */
  terminal?: boolean;
  model?: () => Model;
  /** Called with everything written to stderr so far, and a Ctrl+C to press. */
  onStderr?: (stderr: string, pressCtrlC: () => void) => void;
}

/** `main` with captured output, a fake terminal and a Ctrl+C button. */
export async function runMain(argv: string[], options: FakeIoOptions = {}): Promise<FakeRun> {
  let stdout = "";
  let stderr = "";
  let interrupt: () => void = () => {};
  const pressCtrlC = () => setImmediate(() => interrupt());
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: {
      isTTY: options.terminal ?? false,
      columns: 100,
      write: (text: string) => {
        stderr += text;
        options.onStderr?.(stderr, pressCtrlC);
      },
    },
    env: options.env ?? { PATH: process.env.PATH },
    cwd: options.cwd ?? process.cwd(),
    clock: Date,
    onInterrupt(handler) {
      interrupt = handler;
      return () => {
        interrupt = () => {};
      };
    },
    exit: (code) => {
      throw new Error(`the CLI quit at once with ${code} (a second Ctrl+C)`);
    },
    ...(options.model ? { createModel: options.model } : {}),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
