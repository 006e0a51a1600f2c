import type { AgentEvent, AgentEventListener } from "./events.js";
import { exitOfResult } from "./tools/run-shell.js";

/** One command the agent ran, as its tool log shows it. */
export interface CommandRecord {
  command: string;
  /** The exit status as the shell reports it; "denied" when the policy refused it. */
  exit: string;
  passed: boolean;
  durationMs: number;
  /** The last lines of what it printed. */
  outputTail: string;
}

const TAIL_LINES = 20;

/**
 * Keeps what the agent actually ran, from the tool log rather than from
 * what the model says it ran: reports state these, with their exit codes,
 * and quote the model's own account separately.
 */
export function createCommandLog(): { listener: AgentEventListener; commands(): CommandRecord[] } {
  const started = new Map<string, string>();
  const records: CommandRecord[] = [];
  const listener = (event: AgentEvent): void => {
    if (event.type === "tool_call" && event.name === "run_shell") {
      const command = (event.input as { command?: unknown } | null)?.command;
      if (typeof command === "string") started.set(event.id, command);
    } else if (event.type === "tool_result" && started.has(event.id)) {
      const command = started.get(event.id) ?? "";
      started.delete(event.id);
      const exit = event.content.startsWith("Denied by policy")
        ? "denied"
        : (exitOfResult(event.content) ?? "error");
      records.push({
        command,
        exit,
        passed: exit === "0",
        durationMs: event.durationMs,
        outputTail: lastLines(event.content, TAIL_LINES),
      });
    }
  };
  return { listener, commands: () => [...records] };
}

function lastLines(text: string, count: number): string {
  const lines = text.trimEnd().split("\n");
  return lines.slice(-count).join("\n");
}
