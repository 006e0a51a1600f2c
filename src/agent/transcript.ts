import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
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
  const stream: WriteStream = createWriteStream(path, { flags: "a", mode: 0o600 });
  return {
    path,
    write(record) {
      if (record.type === "text_delta") return;
      const line = { time: new Date(clock.now()).toISOString(), ...toJsonable(record) };
      stream.write(`${JSON.stringify(redactValue(line, redact))}\n`);
    },
    close: () =>
      new Promise((resolve, reject) =>
        stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
      ),
  };
}

function toJsonable(record: TranscriptRecord): Record<string, unknown> {
  if (record.type !== "file_change") return { ...record };
  const { before, after, ...rest } = record;
  return { ...rest, beforeBytes: before?.length ?? null, afterBytes: after?.length ?? null };
}
