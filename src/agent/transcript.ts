import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { errorMessage } from "../error-message.js";
import type { AgentEvent } from "./events.js";
import { type Redactor, redactValue } from "./redact.js";

/**
 * A JSONL record of a run: one line per event (streaming deltas left out,
 * file contents reduced to sizes), every string redacted. It is written as
 * the run goes, so a crash still leaves what happened up to that point.
 */
export interface Transcript {
  readonly path: string;
  write(record: TranscriptRecord): void;
  /** Once every line is written; rejects with the first write's error (no line after it is written). */
  close(): Promise<void>;
}

export type TranscriptRecord =
  | AgentEvent
  | { type: "run_start"; task: string; model: string; cwd: string; policy: string }
  | { type: "run_end"; [key: string]: unknown };

export async function openTranscript(
  path: string,
  redact: Redactor,
  clock: { now(): number },
): Promise<Transcript> {
  await mkdir(dirname(path), { recursive: true });
  // A file handle and a chain of appends rather than a WriteStream: Node
  // loads its file streams on first use (3-4 ms of the Action's way to its
  // first model request on Node 24), and lines still reach the file in
  // order, each as soon as the one before it is written.
  const file = await open(path, "a", 0o600);
  let written: Promise<void> = Promise.resolve();
  let failure: unknown;
  return {
    path,
    write(record) {
      if (record.type === "text_delta") return;
      // The time is this process's clock in ISO form, which no secret can be
      // in: it is not scanned (every rule of the detector, for each line).
      const line = {
        time: new Date(clock.now()).toISOString(),
        ...(redactValue(toJsonable(record), redact) as Record<string, unknown>),
      };
      const text = `${JSON.stringify(line)}\n`;
      written = written.then(async () => {
        if (failure !== undefined) return;
        try {
          await file.appendFile(text);
        } catch (error) {
          // Kept for close(), which says it: a lost line must not pass unnoticed.
          failure = error;
        }
      });
    },
    async close() {
      await written;
      await file.close();
      if (failure !== undefined) throw failure;
    },
  };
}

/**
 * Closes the transcript; a line that could not be written is said through
 * `warn`, never the job's failure (the job's result stands).
 */
export async function closeTranscript(
  transcript: Transcript,
  warn: (message: string) => void,
): Promise<void> {
  await transcript.close().catch((error: unknown) => {
    warn(`the transcript ${transcript.path} is incomplete: ${errorMessage(error)}`);
  });
}

function toJsonable(record: TranscriptRecord): Record<string, unknown> {
  if (record.type !== "file_change") return { ...record };
  const { before, after, ...rest } = record;
  return { ...rest, beforeBytes: before?.length ?? null, afterBytes: after?.length ?? null };
}
