import * as z from "../../zod.js";
import type { ToolSpec } from "../model/model.js";
import { type AnyTool, type PolicyCheck, type ToolContext, toToolSpec } from "./define-tool.js";
import { describeFields, failureText } from "./tool-failure.js";
import { truncateOutput } from "./truncate.js";

export interface ToolRegistry {
  readonly tools: readonly AnyTool[];
  /** Specs in registration order; the same array every call, so prompts stay cacheable. */
  specs(): ToolSpec[];
  get(name: string): AnyTool | undefined;
}

export function createToolRegistry(tools: AnyTool[]): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    byName.set(tool.name, tool);
  }
  const specs = tools.map(toToolSpec);
  return {
    tools: [...tools],
    specs: () => specs,
    get: (name) => byName.get(name),
  };
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolCallResult {
  content: string;
  isError: boolean;
}

/**
 * Validates, checks and runs one tool call. It never throws: every failure
 * (unknown tool, bad input, policy denial, a tool error or a crash) becomes an
 * error result worded so the model can correct its next call, without host paths.
 */
export async function executeToolCall(
  registry: ToolRegistry,
  call: ToolCall,
  ctx: ToolContext,
  check: PolicyCheck,
): Promise<ToolCallResult> {
  const tool = registry.get(call.name);
  if (!tool) {
    const names = registry.tools.map((t) => t.name).join(", ");
    return failure(`Unknown tool "${call.name}". Available tools: ${names}.`);
  }
  const parsed = tool.input.safeParse(call.input);
  if (!parsed.success) {
    return failure(
      `Invalid input for ${tool.name}:\n${z.prettifyError(parsed.error)}\n${describeFields(tool)}`,
    );
  }
  try {
    const decision = await check({
      tool: tool.name,
      input: parsed.data as Record<string, unknown>,
    });
    if (!decision.allow) return failure(`Denied by policy: ${decision.reason}`);
    const output = await tool.run(parsed.data, ctx);
    return { content: truncateOutput(output === "" ? "(no output)" : output), isError: false };
  } catch (error) {
    return failure(failureText(tool, error, ctx.root));
  }
}

function failure(message: string): ToolCallResult {
  return { content: truncateOutput(message), isError: true };
}
