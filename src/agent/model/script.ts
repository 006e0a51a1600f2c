import * as z from "../../zod.js";
import { type AssistantBlock, STOP_REASONS, type StopReason, type Usage } from "./model.js";

/**
 * The data shape of one scripted model turn. The scripted model and the fake
 * Anthropic server both replay it, so a recorded run (JSON) drives either a
 * unit test or a CLI end-to-end run unchanged.
 */

const assistantBlock = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal("redacted_thinking"), data: z.string() }),
  z.object({ type: z.literal("reasoning"), text: z.string() }),
  z.object({
    type: z.literal("tool_use"),
    id: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    input: z.record(z.string(), z.unknown()),
  }),
]);

const stopReason = z.enum(STOP_REASONS);

const tokenCount = z.number().check(z.int(), z.nonnegative());

const responseStep = z.object({
  content: z.array(assistantBlock),
  stopReason: z.optional(stopReason),
  usage: z.optional(
    z.partial(
      z.object({
        inputTokens: tokenCount,
        outputTokens: tokenCount,
        cacheReadTokens: tokenCount,
        cacheWriteTokens: tokenCount,
      }),
    ),
  ),
  /** The model id the response claims; defaults to the requested one. */
  model: z.optional(z.string()),
});

const errorStep = z.object({
  error: z.object({
    status: z.number().check(z.int(), z.gte(400), z.lte(599)),
    message: z.string(),
    /** Anthropic error type, e.g. "overloaded_error"; derived from status if absent. */
    type: z.optional(z.string()),
    /** Seconds, sent as the `retry-after` header. */
    retryAfter: z.optional(z.number().check(z.nonnegative())),
    /** Milliseconds, sent as the `retry-after-ms` header. */
    retryAfterMs: z.optional(z.number().check(z.nonnegative())),
    /** Send 200 and start streaming, then an SSE `error` event (how overload shows mid-stream). */
    inStream: z.optional(z.boolean()),
  }),
});

const cutStep = z.object({
  cut: z.object({
    /** What the stream would have carried; a short text reply if absent. */
    content: z.optional(z.array(assistantBlock)),
    /** How many SSE events go out before the connection is destroyed. */
    afterEvents: z.optional(z.number().check(z.int(), z.nonnegative())),
  }),
});

export const scriptStepSchema = z.union([responseStep, errorStep, cutStep]);

const scriptSchema = z.union([
  z.array(scriptStepSchema),
  z.object({ steps: z.array(scriptStepSchema) }),
]);

export interface ScriptResponse {
  content: AssistantBlock[];
  /** Defaults to "tool_use" when the content has a tool_use block, else "end_turn". */
  stopReason?: StopReason;
  usage?: Partial<Usage>;
  model?: string;
}

export interface ScriptError {
  error: {
    status: number;
    message: string;
    type?: string;
    retryAfter?: number;
    retryAfterMs?: number;
    inStream?: boolean;
  };
}

export interface ScriptCut {
  cut: { content?: AssistantBlock[]; afterEvents?: number };
}

/** One scripted turn as data (JSON-serialisable). */
export type ScriptData = ScriptResponse | ScriptError | ScriptCut;

export function isErrorStep(step: ScriptData): step is ScriptError {
  return "error" in step;
}

export function isCutStep(step: ScriptData): step is ScriptCut {
  return "cut" in step;
}

/** Parses a recorded script: an array of steps, or `{ steps: [...] }`. */
export function parseScript(json: unknown): ScriptData[] {
  const result = scriptSchema.safeParse(json);
  if (!result.success) {
    throw new Error(`Invalid model script:\n${z.prettifyError(result.error)}`);
  }
  const steps = Array.isArray(result.data) ? result.data : result.data.steps;
  return steps as ScriptData[];
}

/** Stop reason a response implies when the script leaves it out. */
export function defaultStopReason(content: AssistantBlock[]): StopReason {
  return content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
}

/** Small, non-zero usage so cost and context arithmetic has something to add up. */
export function fillUsage(usage: Partial<Usage> | undefined): Usage {
  return {
    inputTokens: usage?.inputTokens ?? 100,
    outputTokens: usage?.outputTokens ?? 20,
    cacheReadTokens: usage?.cacheReadTokens ?? 0,
    cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
  };
}

/** Anthropic's error type for an HTTP status, as the real API names it. */
export function errorTypeForStatus(status: number): string {
  const types: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
  };
  return types[status] ?? "api_error";
}
