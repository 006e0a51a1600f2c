import type { Model } from "../agent/model/model.js";

export interface CliStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** The terminal's width, when it is one. */
  columns?: number;
}

/** Everything the CLI touches outside itself; `src/cli.ts` passes the process's own. */
export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: Record<string, string | undefined>;
  cwd: string;
  clock: { now(): number };
  /** Subscribes to Ctrl+C; returns the unsubscribe function. */
  onInterrupt(handler: () => void): () => void;
  /** Ends the process at once (a second Ctrl+C); default process.exit. */
  exit?: (code: number) => void;
  /** Builds the model; tests may swap it, the default talks to the Messages API. */
  createModel?: (options: { apiKey: string; baseURL?: string; model: string }) => Model;
}
