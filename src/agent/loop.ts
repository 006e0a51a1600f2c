import { errorMessage } from "../error-message.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { compactConversation, needsCompaction } from "./compaction.js";
import type { AgentEventListener, AgentStopReason } from "./events.js";
import type { FileHistory } from "./file-history.js";
import {
  addUsage,
  emptyUsage,
  type Message,
  type Model,
  type ModelRequest,
  type ModelResponse,
  promptTokens,
  type ToolUseBlock,
  type Usage,
} from "./model/model.js";
import { costOf, costWith } from "./model/pricing.js";
import type { Redactor } from "./redact.js";
import { runToolCalls } from "./run-tools.js";
import type { PolicyCheck, ReadStamp } from "./tools/define-tool.js";
import type { ToolRegistry } from "./tools/registry.js";
import type { WorkspaceSnapshotter } from "./workspace-snapshot.js";

export interface AgentLimits {
  maxTurns: number;
  maxCostUsd: number;
  maxDurationMs: number;
}

export interface AgentTask {
  /** The instruction, already wrapped with whatever context the caller adds. */
  prompt: string;
  /** System prompt parts, most stable first (see prompt.ts). */
  system: string[];
  limits: AgentLimits;
  maxTokens?: number;
  thinkingBudget?: number;
}

export interface AgentDeps {
  model: Model;
  registry: ToolRegistry;
  check: PolicyCheck;
  history: FileHistory;
  /** Records files changed by shell commands; absent means shell changes go unrecorded. */
  snapshotter?: WorkspaceSnapshotter | undefined;
  /** Real path of the workspace root. */
  root: string;
  /** Scrubbed environment for the agent's shell. */
  env: Record<string, string>;
  /** Where the agent's commands run. */
  sandbox: Sandbox;
  /** Applied to tool results before the model sees them. */
  redact: Redactor;
  clock: { now(): number };
  signal?: AbortSignal | undefined;
  onEvent?: AgentEventListener | undefined;
}

export interface AgentResult {
  stopReason: AgentStopReason;
  /** The model's last words (its answer when it stopped on its own). */
  finalText: string;
  /** What the model said in each turn, for commit messages and reports. */
  turnTexts: Map<number, string>;
  turns: number;
  usage: Usage;
  costUsd: number;
  error?: string;
  messages: Message[];
  /**
   * Set by the session when MCP servers were configured: the servers that did
   * not start (for the tracking comment) and the MCP tools used (for the PR body).
   */
  mcp?: { failures: Array<{ server: string; message: string }>; used: string[] };
}

const DEFAULT_MAX_TOKENS = 16_384;

/** The conversation the agent starts with: the task. */
export function firstMessages(task: Pick<AgentTask, "prompt">): Message[] {
  return [{ role: "user", content: [{ type: "text", text: task.prompt }] }];
}

/**
 * A turn's request (without its signal). The session's early first turn
 * (session.ts) builds the first one with this too, so that it is the
 * request the loop would send, or is not used.
 */
export function turnRequest(
  task: AgentTask,
  messages: Message[],
  registry: Pick<ToolRegistry, "specs">,
): ModelRequest {
  return {
    system: task.system,
    messages,
    tools: registry.specs(),
    maxTokens: task.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...(task.thinkingBudget ? { thinkingBudget: task.thinkingBudget } : {}),
  };
}

/** Why the loop would refuse to send its first request, or undefined when it would send it. */
export function refusalBeforeFirstTurn(model: Model, limits: AgentLimits): string | undefined {
  if (model.price === null && Number.isFinite(limits.maxCostUsd)) {
    // A cap we cannot count against is no cap: refuse rather than run uncapped.
    const name = model.spec ?? model.id;
    return `no price is known for model "${name}", so the cost limit of $${limits.maxCostUsd} cannot be kept; give its USD prices per million tokens in .github/patchwright.yml, e.g. pricing: { "${name}": { input: 1.5, output: 6, cache_read: 0.15 } }`;
  }
  return undefined;
}

/**
 * Runs the agent: model and tools take turns until the model answers without
 * asking for a tool, or a limit (turns, cost, time, abort) is reached. It
 * never throws for model or tool failures: the result says how the run ended
 * and the file history keeps whatever was done.
 */
export async function runAgent(deps: AgentDeps, task: AgentTask): Promise<AgentResult> {
  const emit: AgentEventListener = deps.onEvent ?? (() => {});
  const started = deps.clock.now();
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(deps.signal?.reason);
  if (deps.signal?.aborted) forwardAbort();
  deps.signal?.addEventListener("abort", forwardAbort, { once: true });
  // The wall-clock limit also cuts a request or command that is still running.
  const deadline = setTimeout(
    () => controller.abort(new Error("time limit")),
    task.limits.maxDurationMs,
  );
  deadline.unref?.();

  const reads = new Map<string, ReadStamp>();
  let messages = firstMessages(task);
  const turnTexts = new Map<number, string>();
  let usage = emptyUsage();
  let costUsd = 0;
  let turns = 0;
  let finalText = "";

  const account = (turn: number, response: ModelResponse): void => {
    const price = deps.model.price;
    const turnCost = price
      ? costWith(price, response.usage)
      : costOf(response.model, response.usage);
    usage = addUsage(usage, response.usage);
    costUsd += turnCost;
    emit({
      type: "usage",
      turn,
      usage: response.usage,
      costUsd: turnCost,
      totalUsage: usage,
      totalCostUsd: costUsd,
    });
  };

  const limitReached = (): AgentStopReason | null => {
    if (controller.signal.aborted) return deps.signal?.aborted ? "aborted" : "timeout";
    if (turns >= task.limits.maxTurns) return "max_turns";
    if (costUsd >= task.limits.maxCostUsd) return "max_cost";
    if (deps.clock.now() - started >= task.limits.maxDurationMs) return "timeout";
    return null;
  };

  const finish = (stopReason: AgentStopReason, error?: string): AgentResult => {
    clearTimeout(deadline);
    deps.signal?.removeEventListener("abort", forwardAbort);
    emit(
      error === undefined
        ? { type: "stop", reason: stopReason, turns }
        : { type: "stop", reason: stopReason, turns, error },
    );
    const result: AgentResult = {
      stopReason,
      finalText,
      turnTexts,
      turns,
      usage,
      costUsd,
      messages,
    };
    if (error !== undefined) result.error = error;
    return result;
  };

  const refusal = refusalBeforeFirstTurn(deps.model, task.limits);
  if (refusal) return finish("error", refusal);

  let lastPromptTokens = 0;
  for (;;) {
    const limit = limitReached();
    if (limit) return finish(limit);

    if (needsCompaction(lastPromptTokens, deps.model.contextWindow)) {
      try {
        const compacted = await compactConversation(deps.model, messages, controller.signal);
        if (compacted) {
          account(turns, compacted.response);
          emit({
            type: "compaction",
            turn: turns,
            promptTokens: lastPromptTokens,
            summaryChars: compacted.summary.length,
          });
          messages = compacted.messages;
        }
      } catch (error) {
        return finish(stopReasonFor(controller, deps.signal), describe(error));
      }
    }

    turns += 1;
    const turn = turns;
    emit({ type: "turn_start", turn });
    let response: ModelResponse;
    try {
      response = await deps.model.complete(
        { ...turnRequest(task, messages, deps.registry), signal: controller.signal },
        (event) => {
          if (event.type === "text_delta") emit({ type: "text_delta", turn, text: event.text });
          if (event.type === "retry") emit({ type: "retry", turn, ...withoutType(event) });
        },
      );
    } catch (error) {
      return finish(stopReasonFor(controller, deps.signal), describe(error));
    }
    account(turn, response);
    lastPromptTokens = promptTokens(response.usage);
    messages = [...messages, { role: "assistant", content: response.content }];

    const text = response.content
      .flatMap((block) => (block.type === "text" ? [block.text] : []))
      .join("\n")
      .trim();
    if (text) {
      turnTexts.set(turn, text);
      finalText = text;
      emit({ type: "text", turn, text });
    }

    const calls = response.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
    if (calls.length === 0) {
      if (response.stopReason === "refusal") return finish("refusal");
      return finish("end_turn");
    }

    const results = await runToolCalls(
      {
        registry: deps.registry,
        check: deps.check,
        history: deps.history,
        snapshotter: deps.snapshotter,
        root: deps.root,
        env: deps.env,
        sandbox: deps.sandbox,
        redact: deps.redact,
        reads,
        signal: controller.signal,
        now: () => deps.clock.now(),
        emit,
      },
      turn,
      response.stopReason === "max_tokens" ? calls.slice(0, -1) : calls,
    );
    if (response.stopReason === "max_tokens") {
      // The last call was cut off mid-input by the output limit; running it
      // would act on half an instruction.
      const cut = calls[calls.length - 1] as ToolUseBlock;
      results.push({
        type: "tool_result",
        tool_use_id: cut.id,
        is_error: true,
        content:
          "This call was cut off by the output token limit and was not run. Make smaller edits or split the work.",
      });
    }
    messages = [...messages, { role: "user", content: results }];
  }
}

function stopReasonFor(
  controller: AbortController,
  external: AbortSignal | undefined,
): AgentStopReason {
  if (external?.aborted) return "aborted";
  if (controller.signal.aborted) return "timeout";
  return "error";
}

function describe(error: unknown): string {
  return errorMessage(error);
}

function withoutType<T extends { type: string }>(event: T): Omit<T, "type"> {
  const { type: _type, ...rest } = event;
  return rest;
}
