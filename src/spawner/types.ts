/** What the spawner's runs take and give (spawner.ts). */

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
