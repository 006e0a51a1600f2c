import type { AgentEvent } from "../agent/events.js";

/**
 * The one sink for what a job does, whatever its kind and entry point:
 * the tracking comment, the CLI's log, the job record and (next) the job
 * page each subscribe to it. Built once per job; passed down whole.
 */
export interface JobEvents {
  /**
   * Job-level progress ("Preparing the workspace", "Verifying"...); a call
   * with the running step's text and a note says something about that step
   * while it runs (a network failure in its output).
   */
  step(text: string, note?: string): void;
  /** Something went wrong that does not stop the job (a checkpoint not saved). */
  warning(message: string): void;
  /** What the agent does: model text, tool calls, turns, cost. */
  agent(event: AgentEvent): void;
  /** The work is on its branch, not yet published: a job record keeps the name for a re-run. */
  pushed(branch: string): void | Promise<void>;
  /** A checkpoint is on the remote: a job record keeps it. */
  checkpoint(sha: string): void | Promise<void>;
  /** The tracking comment exists: a job record keeps it. */
  tracking(comment: { id: number; url: string }): void | Promise<void>;
}

const NAMES = ["step", "warning", "agent", "pushed", "checkpoint", "tracking"] as const;

/** A sink that sends each event to every listener that wants it, in order (and waits for async ones). */
export function fanOut(...sinks: readonly (Partial<JobEvents> | undefined)[]): JobEvents {
  const listeners = sinks.filter((sink): sink is Partial<JobEvents> => sink !== undefined);
  const events = {} as Record<(typeof NAMES)[number], (...args: never[]) => unknown>;
  for (const name of NAMES) {
    const own = listeners
      .map((sink) => sink[name] as ((...args: unknown[]) => unknown) | undefined)
      .filter((listener) => listener !== undefined);
    events[name] = (...args: unknown[]) => {
      const pending = own.map((listener) => listener(...args)).filter(isPromise);
      return pending.length > 0 ? Promise.all(pending).then(() => undefined) : undefined;
    };
  }
  return events as unknown as JobEvents;
}

/**
 * `events`, keeping each warning it is given as well: what a job's result
 * carries, so the reports that read the result say what its listeners heard.
 */
export function keepingWarnings(events: JobEvents): { events: JobEvents; warnings: string[] } {
  const warnings: string[] = [];
  return { events: fanOut(events, { warning: (message) => warnings.push(message) }), warnings };
}

/** A sink from the listeners given; the rest do nothing. */
export function jobEvents(listeners: Partial<JobEvents> = {}): JobEvents {
  return fanOut(listeners);
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | undefined)?.then === "function";
}
