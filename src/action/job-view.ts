import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Redactor } from "../agent/redact.js";
import type { JobEvents } from "../kernel/events.js";
import { htmlText } from "../pages/html.js";
import type { JobEventLog, LogEntry, LogListener } from "../queue/event-log.js";
import { createJobRecorder } from "../service/jobs-view/recorder.js";
import type { JobSummary, ViewEvent } from "../service/jobs-view/types.js";
import type { ThreadOutcome } from "../thread/plan.js";

/**
 * The Action's run has no server for the job pages: the same view is kept
 * in memory as the job goes (the App's recorder, so redacted the same way)
 * and written as one HTML file at the end, which the run attaches as an
 * artifact (action/artifact.ts) and links from its step summary.
 */

export interface ActionJobView {
  /** One more listener on the job's events. */
  events: Partial<JobEvents>;
  /** The final report, as the tracking comment shows it. */
  report(markdown: string, outcome: "success" | "failure"): void;
  /** Writes the page; returns its path. */
  write(outcome: ThreadOutcome | undefined): Promise<string>;
}

export function createActionJobView(options: {
  path: string;
  job: Omit<
    JobSummary,
    "state" | "finishedAt" | "turns" | "tokens" | "costUsd" | "outcome" | "links"
  >;
  redact: Redactor;
  clock: { now(): number };
}): ActionJobView {
  const log = memoryLog();
  const recorder = createJobRecorder({
    log,
    jobId: options.job.id,
    redact: options.redact,
    clock: options.clock,
  });
  return {
    events: recorder.events,
    report: (markdown, outcome) => recorder.report(markdown, outcome),
    async write(outcome) {
      await recorder.flush();
      const stats = recorder.stats();
      const now = options.clock.now();
      const failed = !outcome || outcome.conclusion === "failure";
      const job: JobSummary = {
        ...options.job,
        state: failed ? "failed" : "done",
        finishedAt: now,
        ...stats,
        outcome: { conclusion: outcome?.conclusion ?? "failure" },
        links: outcome?.pullRequest ? { pullRequest: outcome.pullRequest.url } : {},
      };
      const { entries } = await log.read(job.id);
      const events = entries.map((e) => e.entry as ViewEvent);
      await mkdir(dirname(options.path), { recursive: true });
      // Loaded at the end, where the page is written: the Action's start need not load it.
      const { renderStandaloneJob } = await import("../pages/render/standalone.js");
      await writeFile(options.path, htmlText(renderStandaloneJob({ job, events, now })));
      return options.path;
    },
  };
}

/** One job's log, in this process only: the Action runs one job. */
function memoryLog(): JobEventLog {
  const entries: LogEntry[] = [];
  const listeners = new Set<LogListener>();
  return {
    append: async (_jobId, entry) => {
      const index = entries.length;
      entries.push({ index, entry });
      for (const listener of listeners) listener(entry, index);
    },
    read: async (_jobId, from = 0) => ({ entries: entries.slice(from), next: entries.length }),
    subscribe: (_jobId, listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => {},
  };
}
