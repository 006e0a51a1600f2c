import type { AgentEvent, AgentStopReason } from "../agent/events.js";
import type { ToolKind } from "../agent/tools/define-tool.js";
import { type ToolFactsLookup, toolFactsLookup } from "../agent/tools/facts.js";
import { formatUsd, inlineCode, plural } from "./markdown.js";

/**
 * What the tracking comment shows while a job runs: the job's own steps
 * (preparing the workspace, verifying, pushing) and, inside the agent's step,
 * a summary of what the agent is doing. Pure: events in, Markdown out; the
 * status reporter decides when to send it.
 */

type StepState = "running" | "done" | "failed";

interface JobStep {
  kind: "step";
  text: string;
  state: StepState;
  /** Said under the step while it runs (a network failure seen in its output). */
  note?: string | undefined;
}

interface CommandItem {
  id: string;
  command: string;
  state: "running" | "passed" | "failed";
}

interface AgentStep {
  kind: "agent";
  state: StepState;
  turn: number;
  costUsd: number;
  reads: Set<string>;
  searches: number;
  edited: string[];
  commands: CommandItem[];
  otherTools: Map<string, number>;
  /** Tool calls not answered yet (id -> kind, or name for other tools), so a step shows as in progress. */
  pending: Map<string, string>;
  note: string | undefined;
  stopReason: AgentStopReason | undefined;
}

/** Commands beyond this are summarised as a count, so a long run keeps a short comment. */
const MAX_COMMANDS_SHOWN = 8;
const MAX_FILES_SHOWN = 10;

const STOP_LABELS: Record<AgentStopReason, string> = {
  end_turn: "finished",
  max_turns: "stopped at the turn limit",
  max_cost: "stopped at the cost limit",
  timeout: "stopped at the time limit",
  aborted: "cancelled",
  refusal: "declined the request",
  error: "stopped by an error",
};

export class Checklist {
  readonly #entries: Array<JobStep | AgentStep> = [];
  readonly #facts: ToolFactsLookup;
  #budgetUsd: number | undefined;

  /** `facts` tells what each tool is (default: the built-in tools; MCP tools by their name). */
  constructor(facts: ToolFactsLookup = toolFactsLookup()) {
    this.#facts = facts;
  }

  /**
   * Starts a job-level step; the step before it counts as done. With a
   * note, for the step already running with the same text, adds the note
   * to it instead.
   */
  step(text: string, note?: string): void {
    const last = this.#entries.at(-1);
    if (note && last?.kind === "step" && last.state === "running" && last.text === text) {
      last.note = note;
      return;
    }
    this.#settleRunning("done");
    this.#entries.push({ kind: "step", text, state: "running", note });
  }

  /** The job's cost cap: the agent's line shows its spend against it ("$0.41 of $2.00 budget"). */
  budget(usd: number | undefined): void {
    this.#budgetUsd = usd !== undefined && Number.isFinite(usd) && usd > 0 ? usd : undefined;
  }

  /** Folds one agent event into the agent's step; returns whether anything visible changed. */
  apply(event: AgentEvent): boolean {
    if (event.type === "text_delta" || event.type === "text") return false;
    const agent = this.#agent();
    switch (event.type) {
      case "turn_start":
        agent.turn = event.turn;
        agent.note = undefined;
        return true;
      case "usage":
        agent.costUsd = event.totalCostUsd;
        return true;
      case "retry":
        agent.note = `The model API is busy; retrying (attempt ${event.attempt})`;
        return true;
      case "tool_call":
        trackCall(agent, event, this.#facts);
        return true;
      case "tool_result":
        trackResult(agent, event);
        return true;
      case "file_change":
        if (!agent.edited.includes(event.path)) agent.edited.push(event.path);
        return true;
      case "stop":
        agent.stopReason = event.reason;
        agent.turn = Math.max(agent.turn, event.turns);
        agent.state = event.reason === "end_turn" ? "done" : "failed";
        agent.note = undefined;
        agent.pending.clear();
        for (const command of agent.commands) {
          if (command.state === "running") command.state = "failed";
        }
        return true;
      default:
        return false;
    }
  }

  /** Settles whatever is still running, for the final state. */
  finish(outcome: "success" | "failure"): void {
    this.#settleRunning(outcome === "success" ? "done" : "failed");
  }

  isEmpty(): boolean {
    return this.#entries.length === 0;
  }

  render(): string {
    const lines: string[] = [];
    for (const entry of this.#entries) {
      if (entry.kind === "step") {
        lines.push(checkbox(entry.state, entry.text));
        if (entry.note) lines.push(`  - ⚠️ ${entry.note}`);
      } else lines.push(...renderAgent(entry, this.#budgetUsd));
    }
    return lines.join("\n");
  }

  #agent(): AgentStep {
    const last = this.#entries.at(-1);
    if (last?.kind === "agent" && last.state === "running") return last;
    this.#settleRunning("done");
    const agent: AgentStep = {
      kind: "agent",
      state: "running",
      turn: 0,
      costUsd: 0,
      reads: new Set(),
      searches: 0,
      edited: [],
      commands: [],
      otherTools: new Map(),
      pending: new Map(),
      note: undefined,
      stopReason: undefined,
    };
    this.#entries.push(agent);
    return agent;
  }

  #settleRunning(state: "done" | "failed"): void {
    for (const entry of this.#entries) {
      if (entry.state !== "running") continue;
      entry.state = state;
      if (entry.kind === "agent") {
        entry.note = undefined;
        entry.pending.clear();
        for (const command of entry.commands) {
          if (command.state === "running") command.state = "failed";
        }
      }
    }
  }
}

/** What the comment groups a call under: its kind for the workspace tools, else its own name. */
const GROUPED_KINDS: ReadonlySet<ToolKind> = new Set(["read", "search", "write", "shell"]);

function trackCall(
  agent: AgentStep,
  event: Extract<AgentEvent, { type: "tool_call" }>,
  factsOf: ToolFactsLookup,
): void {
  const input = (event.input ?? {}) as Record<string, unknown>;
  const facts = factsOf(event.name);
  const kind = facts?.kind;
  agent.pending.set(event.id, kind && GROUPED_KINDS.has(kind) ? kind : event.name);
  switch (kind) {
    case "read": {
      const path = facts?.pathFields[0] === undefined ? undefined : input[facts.pathFields[0]];
      agent.reads.add(typeof path === "string" ? path : event.summary);
      break;
    }
    case "search":
      agent.searches += 1;
      break;
    case "write":
      // The file shows up as edited when its file_change event arrives: a failed edit is no edit.
      break;
    case "shell":
      agent.commands.push({
        id: event.id,
        command: typeof input.command === "string" ? input.command : event.summary,
        state: "running",
      });
      break;
    default:
      agent.otherTools.set(event.name, (agent.otherTools.get(event.name) ?? 0) + 1);
  }
}

function trackResult(agent: AgentStep, event: Extract<AgentEvent, { type: "tool_result" }>): void {
  agent.pending.delete(event.id);
  const command = agent.commands.find((c) => c.id === event.id);
  if (command)
    command.state = !event.isError && exitCode(event.content) === "0" ? "passed" : "failed";
}

/** run_shell reports `exit code: N` near the top of its result. */
function exitCode(content: string): string | undefined {
  return /^exit code: (\S+)/m.exec(content)?.[1];
}

function renderAgent(agent: AgentStep, budgetUsd: number | undefined): string[] {
  const status = agent.stopReason ? ` (${STOP_LABELS[agent.stopReason]})` : "";
  const spend =
    budgetUsd === undefined
      ? formatUsd(agent.costUsd)
      : `${formatUsd(agent.costUsd)} of $${budgetUsd.toFixed(2)} budget`;
  const progress = agent.turn > 0 ? ` · turn ${agent.turn} · ${spend}` : "";
  const lines = [checkbox(agent.state, `Agent at work${progress}${status}`)];
  const pendingNames = new Set(agent.pending.values());
  const sub = (running: boolean, text: string) =>
    lines.push(`  ${checkbox(running && agent.state === "running" ? "running" : "done", text)}`);

  if (agent.reads.size > 0) {
    sub(pendingNames.has("read"), `Reading files (${agent.reads.size})`);
  }
  if (agent.searches > 0) {
    sub(pendingNames.has("search"), `Searching the code (${agent.searches})`);
  }
  if (agent.edited.length > 0) {
    sub(pendingNames.has("write"), `Editing ${fileList(agent.edited)}`);
  }
  const hidden = agent.commands.length - MAX_COMMANDS_SHOWN;
  if (hidden > 0) {
    const earlier = agent.commands.slice(0, hidden);
    const failed = earlier.filter((c) => c.state === "failed").length;
    sub(false, `${plural(hidden, "earlier command")} (${failed} failed)`);
  }
  for (const command of agent.commands.slice(Math.max(0, hidden))) {
    const code = inlineCode(command.command, 80);
    if (command.state === "running" && agent.state === "running") sub(true, `Running ${code}`);
    else sub(false, `Running ${code} ${command.state === "passed" ? "✅" : "❌"}`);
  }
  for (const [name, count] of agent.otherTools) {
    sub(pendingNames.has(name), `Using ${inlineCode(name)} (${count})`);
  }
  if (agent.note) lines.push(`  - ${agent.note}`);
  return lines;
}

function fileList(paths: string[]): string {
  const shown = paths.slice(0, MAX_FILES_SHOWN).map((p) => inlineCode(p));
  const more = paths.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}

function checkbox(state: StepState, text: string): string {
  if (state === "failed") return `- [ ] ${text} ❌`;
  return `- [${state === "done" ? "x" : " "}] ${text}`;
}
