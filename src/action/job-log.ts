import type { AgentEvent } from "../agent/events.js";
import type { Redactor } from "../agent/redact.js";
import type { Transcript } from "../agent/transcript.js";
import { plainStep, plural } from "../github/markdown.js";
import type { StatusReporter } from "../github/status.js";

/**
 * The job's progress in the workflow log and the transcript file. The
 * tracking comment shows a checklist; the log is where someone reading the
 * run looks, so it gets each step, each tool call and what the model said.
 */
export interface JobLog {
  onEvent(event: AgentEvent): void;
  onStep(step: string, note?: string): void;
}

const MAX_LOG_TEXT = 2_000;

export function createJobLog(options: {
  info: (message: string) => void;
  /** None: the events are only logged (`mode: deps`, whose groups keep no transcript). */
  transcript?: Transcript;
  redact: Redactor;
}): JobLog {
  const say = (text: string) => {
    const clipped = text.length > MAX_LOG_TEXT ? `${text.slice(0, MAX_LOG_TEXT)}…` : text;
    options.info(options.redact(clipped));
  };
  return {
    onEvent(event) {
      options.transcript?.write(event);
      if (event.type === "text" && event.text.trim()) say(event.text.trim());
      else if (event.type === "tool_call") say(`  → ${event.summary}`);
      else if (event.type === "tool_result" && event.isError) say(`  ✗ ${event.name} failed`);
      else if (event.type === "retry") say(`  (retrying the model request: ${event.reason})`);
      else if (event.type === "stop")
        say(`Agent stopped after ${plural(event.turns, "turn")}: ${event.reason}`);
    },
    onStep: (step, note) => say(note ? `  ⚠ ${plainStep(note)}` : plainStep(step)),
  };
}

/** The same status reporter, with every event and step also sent to the log. */
export function withJobLog(status: StatusReporter, log: JobLog): StatusReporter {
  return {
    ...status,
    update(event) {
      log.onEvent(event);
      status.update(event);
    },
    step(text, note) {
      log.onStep(text, note);
      status.step(text, note);
    },
  };
}
