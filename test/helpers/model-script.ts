import type {
  AssistantBlock,
  StopReason,
  TextBlock,
  ThinkingBlock,
  ToolUseBlock,
  Usage,
} from "../../src/agent/model/model.js";
import type { ScriptCut, ScriptError, ScriptResponse } from "../../src/agent/model/script.js";

/**
 * Short builders for script steps; the same steps drive `createScriptedModel`
 * and `startFakeAnthropic`.
 */

let toolIds = 0;

export function text(value: string): TextBlock {
  return { type: "text", text: value };
}

export function toolUse(name: string, input: Record<string, unknown>, id?: string): ToolUseBlock {
  return { type: "tool_use", id: id ?? `toolu_script_${++toolIds}`, name, input };
}

export function thinking(value: string, signature = "sig_fake"): ThinkingBlock {
  return { type: "thinking", thinking: value, signature };
}

/** A turn that says something and stops. */
export function reply(value: string, usage?: Partial<Usage>): ScriptResponse {
  return usage ? { content: [text(value)], usage } : { content: [text(value)] };
}

/** A turn that calls one tool (optionally after a sentence). */
export function callTool(
  name: string,
  input: Record<string, unknown>,
  options: { say?: string; id?: string } = {},
): ScriptResponse {
  const content = options.say ? [text(options.say)] : [];
  return { content: [...content, toolUse(name, input, options.id)] };
}

/** A turn from explicit blocks. */
export function turn(
  content: AssistantBlock[],
  stopReason?: StopReason,
  usage?: Partial<Usage>,
): ScriptResponse {
  const step: ScriptResponse = { content };
  if (stopReason) step.stopReason = stopReason;
  if (usage) step.usage = usage;
  return step;
}

export function httpError(
  status: number,
  message = `scripted ${status}`,
  extra: Omit<ScriptError["error"], "status" | "message"> = {},
): ScriptError {
  return { error: { status, message, ...extra } };
}

export function overloaded(
  extra: Omit<ScriptError["error"], "status" | "message"> = {},
): ScriptError {
  return httpError(529, "Overloaded", extra);
}

export function cut(afterEvents?: number, content?: AssistantBlock[]): ScriptCut {
  const step: ScriptCut = { cut: {} };
  if (afterEvents !== undefined) step.cut.afterEvents = afterEvents;
  if (content) step.cut.content = content;
  return step;
}
