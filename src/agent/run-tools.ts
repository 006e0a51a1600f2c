import { markInvisible } from "../secrets/invisible.js";
import type { AgentEventListener } from "./events.js";
import type { FileHistory } from "./file-history.js";
import type { ToolResultBlock, ToolUseBlock } from "./model/model.js";
import type { Redactor } from "./redact.js";
import { restoreRedacted } from "./redaction-edits.js";
import type { AnyTool, ChangeRecord, PolicyCheck, ToolContext } from "./tools/define-tool.js";
import { executeToolCall, type ToolRegistry } from "./tools/registry.js";
import { changeTracker, type WorkspaceSnapshotter } from "./workspace-snapshot.js";

export interface ToolRunDeps {
  registry: ToolRegistry;
  check: PolicyCheck;
  history: FileHistory;
  snapshotter?: WorkspaceSnapshotter | undefined;
  root: string;
  env: Record<string, string>;
  sandbox: ToolContext["sandbox"];
  reads: ToolContext["reads"];
  signal: AbortSignal;
  /** Applied to every tool result: secrets never reach the model. */
  redact: Redactor;
  now: () => number;
  emit: AgentEventListener;
}

/**
 * Runs one turn's tool calls. Neighbouring calls that are read-only and
 * concurrency-safe run together; anything that may write runs alone, in
 * order, so the file history sees changes in the order the model asked for
 * them. Results come back in call order, as the Messages API requires.
 */
export async function runToolCalls(
  deps: ToolRunDeps,
  turn: number,
  calls: ToolUseBlock[],
): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  for (const batch of batchCalls(deps.registry, calls)) {
    const batchResults = await Promise.all(batch.map((call) => runOne(deps, turn, call)));
    results.push(...batchResults);
  }
  return results;
}

function batchCalls(registry: ToolRegistry, calls: ToolUseBlock[]): ToolUseBlock[][] {
  const batches: ToolUseBlock[][] = [];
  let parallel: ToolUseBlock[] = [];
  for (const call of calls) {
    if (isParallelSafe(registry.get(call.name))) {
      parallel.push(call);
      continue;
    }
    if (parallel.length > 0) batches.push(parallel);
    parallel = [];
    batches.push([call]);
  }
  if (parallel.length > 0) batches.push(parallel);
  return batches;
}

function isParallelSafe(tool: AnyTool | undefined): boolean {
  return tool?.readOnly === true && tool.concurrencySafe;
}

async function runOne(
  deps: ToolRunDeps,
  turn: number,
  call: ToolUseBlock,
): Promise<ToolResultBlock> {
  const tool = deps.registry.get(call.name);
  const summary = summarizeCall(tool, call);
  deps.emit({ type: "tool_call", turn, id: call.id, name: call.name, input: call.input, summary });
  const started = deps.now();
  const record = (change: ChangeRecord): void => {
    deps.history.record({ ...change, turn, toolCallId: call.id, tool: call.name });
    deps.emit({ type: "file_change", turn, toolCallId: call.id, ...change });
  };
  const ctx: ToolContext = {
    root: deps.root,
    env: deps.env,
    sandbox: deps.sandbox,
    reads: deps.reads,
    signal: deps.signal,
    recordChange: record,
    trackChanges: changeTracker(deps.snapshotter, record),
  };
  const restored =
    tool && deps.redact.find
      ? await restoreRedacted(tool, call.input, deps.root, deps.redact.find)
      : null;
  const result =
    restored && "error" in restored
      ? { content: restored.error, isError: true }
      : await executeToolCall(
          deps.registry,
          restored ? { ...call, input: restored.input } : call,
          ctx,
          deps.check,
        );
  // Before the model, the transcript or anything else sees it. What a
  // command or an MCP server printed is data: its hidden characters are
  // shown, not passed on (a file read keeps the file as it is); after the
  // redaction, which sees through them to a token they split.
  const redacted = deps.redact(result.content);
  const content =
    tool?.kind === "shell" || tool?.kind === "external" ? markInvisible(redacted) : redacted;
  const isError = result.isError;
  deps.emit({
    type: "tool_result",
    turn,
    id: call.id,
    name: call.name,
    content,
    isError,
    durationMs: deps.now() - started,
  });
  return isError
    ? { type: "tool_result", tool_use_id: call.id, content, is_error: true }
    : { type: "tool_result", tool_use_id: call.id, content };
}

function summarizeCall(tool: AnyTool | undefined, call: ToolUseBlock): string {
  if (!tool) return call.name;
  const parsed = tool.input.safeParse(call.input);
  return parsed.success ? tool.summarize(parsed.data) : call.name;
}
