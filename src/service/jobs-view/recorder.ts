import type { AgentEvent } from "../../agent/events.js";
import { filePatchLines } from "../../agent/file-diff.js";
import type { Redactor } from "../../agent/redact.js";
import type { JobEvents } from "../../kernel/events.js";
import type { JobEventLog } from "../../queue/event-log.js";
import type { JobStats } from "../../queue/types.js";
import type { ViewEvent } from "./types.js";

/**
 * Writes what a job does into its event log as the job page shows it
 * (`ViewEvent`), each one through the job's redactor before it is stored:
 * nothing a page or a stream shows holds a secret the job saw. One more
 * listener on the job's events (kernel/events.ts fanOut); the queue writes
 * the state changes itself. Entries are cut (see LIMITS) so a transcript
 * stays small; the model's text is kept whole up to a generous size.
 * Keeps the job's turns, tokens and cost for its record (`stats()`).
 */

const LIMITS = { text: 20_000, input: 2_000, tail: 4_000, reason: 1_000, report: 60_000 };
const DENIAL = /^Denied by policy:\s*/;
const EDIT_TOOLS = new Set(["edit_file", "write_file"]);

export interface JobRecorder {
  events: Partial<JobEvents>;
  /** The final report, as the tracking comment shows it. */
  report(markdown: string, outcome: "success" | "failure"): void;
  /** Turns, tokens and cost so far, counting from `stats` it was made with (earlier attempts). */
  stats(): JobStats;
  /** Resolves when every entry given so far is stored. */
  flush(): Promise<void>;
}

export function createJobRecorder(options: {
  log: JobEventLog;
  jobId: string;
  redact: Redactor;
  clock: { now(): number };
  /** What earlier attempts used: this one adds to it. */
  stats?: JobStats | undefined;
  onError?: ((error: unknown) => void) | undefined;
  /**
   * Keeps the running totals on the job's record after each model answer,
   * before its usage line is stored: a page that redraws the job's summary
   * on that line reads the new cost.
   */
  saveStats?: ((stats: JobStats) => Promise<void>) | undefined;
}): JobRecorder {
  const { log, jobId, redact, clock } = options;
  const totals: JobStats = { ...(options.stats ?? { turns: 0, tokens: 0, costUsd: 0 }) };
  const pending = new Set<Promise<void>>();
  /** Diffs of the files a tool call changed, shown as its result's tail. */
  const diffs = new Map<string, string[]>();

  /** Entries are stored one after another, in the order they happened. */
  let last: Promise<void> = Promise.resolve();
  function write(event: DistributiveOmit<ViewEvent, "at">, before?: () => Promise<void>): void {
    const entry = { at: clock.now(), ...event };
    const stored = last
      .then(() => before?.())
      .catch((error: unknown) => options.onError?.(error))
      .then(() => log.append(jobId, entry))
      .catch((error: unknown) => options.onError?.(error));
    last = stored;
    pending.add(stored);
    void stored.finally(() => pending.delete(stored));
  }
  const clean = (text: string, max: number) => cut(redact(text), max);

  function agent(event: AgentEvent): void {
    switch (event.type) {
      case "turn_start":
        totals.turns += 1;
        return;
      case "text":
        if (event.text.trim())
          write({ type: "text", turn: event.turn, text: clean(event.text, LIMITS.text) });
        return;
      case "tool_call":
        write({
          type: "tool_call",
          turn: event.turn,
          id: event.id,
          name: event.name,
          input: clean(compactJson(event.input), LIMITS.input),
        });
        return;
      case "file_change": {
        const list = diffs.get(event.toolCallId) ?? [];
        list.push(diffOf(event.path, event.before, event.after));
        diffs.set(event.toolCallId, list);
        return;
      }
      case "tool_result": {
        const changed = diffs.get(event.id);
        diffs.delete(event.id);
        if (event.isError && DENIAL.test(event.content)) {
          write({
            type: "denied",
            turn: event.turn,
            name: event.name,
            reason: clean(event.content.replace(DENIAL, ""), LIMITS.reason),
          });
          return;
        }
        const shown =
          changed && EDIT_TOOLS.has(event.name) && !event.isError
            ? changed.join("\n")
            : event.content;
        write({
          type: "tool_result",
          turn: event.turn,
          id: event.id,
          name: event.name,
          isError: event.isError,
          tail: tail(redact(shown), LIMITS.tail),
        });
        return;
      }
      case "usage":
        totals.tokens += event.usage.inputTokens + event.usage.outputTokens;
        totals.costUsd += event.costUsd;
        {
          const now = { ...totals, costUsd: round(totals.costUsd) };
          const save = options.saveStats;
          write(
            {
              type: "usage",
              turn: event.turn,
              costUsd: now.costUsd,
              inputTokens: event.totalUsage.inputTokens,
              outputTokens: event.totalUsage.outputTokens,
            },
            save ? () => save(now) : undefined,
          );
        }
        return;
      default:
        return;
    }
  }

  return {
    events: {
      step: (text, note) =>
        write({
          type: "step",
          text: clean(text, LIMITS.reason),
          ...(note ? { note: clean(note, LIMITS.reason) } : {}),
        }),
      warning: (message) => write({ type: "warning", text: clean(message, LIMITS.reason) }),
      agent,
      checkpoint: (sha) => write({ type: "checkpoint", sha }),
      pushed: (branch) => write({ type: "pushed", branch }),
    },
    report: (markdown, outcome) =>
      write({ type: "report", markdown: clean(markdown, LIMITS.report), outcome }),
    stats: () => ({ ...totals, costUsd: round(totals.costUsd) }),
    async flush() {
      await Promise.all([...pending]);
    },
  };
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

function cut(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** The end of an output, where a command says how it ended. */
function tail(text: string, max: number): string {
  return text.length <= max
    ? text
    : `(${text.length - max} characters before) …${text.slice(-max)}`;
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

function diffOf(path: string, before: Buffer | null, after: Buffer | null): string {
  return filePatchLines(path, before, after)?.join("\n") ?? `${path} (binary)`;
}
