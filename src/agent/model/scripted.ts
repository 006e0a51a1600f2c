import type { Model, ModelPrice, ModelRequest, ModelResponse, ModelStreamEvent } from "./model.js";
import { ModelError } from "./model.js";
import { priceOf } from "./pricing.js";
import {
  defaultStopReason,
  fillUsage,
  isCutStep,
  isErrorStep,
  type ScriptData,
  type ScriptResponse,
} from "./script.js";

export { parseScript } from "./script.js";

/** What a request looked like, minus the AbortSignal (so tests can deep-equal it). */
export type RecordedModelRequest = Omit<ModelRequest, "signal">;

/** A canned turn, an error, a cut stream, or a function of the request. */
export type ScriptStep = ScriptData | ((request: RecordedModelRequest) => ScriptData);

export interface ScriptedModel extends Model {
  /** Every request received, deep-copied at call time. */
  readonly requests: RecordedModelRequest[];
  /** Steps not yet used. */
  readonly remaining: number;
}

export interface ScriptedModelOptions {
  id?: string;
  contextWindow?: number;
  /** Defaults to the table's price for `id`, else Sonnet 4.5's; null: unknown (a capped run refuses). */
  price?: ModelPrice | null;
}

// A scripted id ("claude-scripted") is in no table; its tokens still cost
// something, so cost limits and reports can be exercised with it.
const SCRIPTED_PRICE = priceOf("claude-sonnet-4-5");

/**
 * A model that answers from a queue of steps: the agent loop's tests use it
 * to drive exact conversations, and a recorded run (see `parseScript`) can be
 * replayed through it. It streams text and tool starts through `onEvent` like
 * the real model, so display code is exercised too.
 */
export function createScriptedModel(
  steps: ScriptStep[],
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const queue = [...steps];
  const requests: RecordedModelRequest[] = [];
  const id = options.id ?? "claude-scripted";

  return {
    id,
    contextWindow: options.contextWindow ?? 200_000,
    price: options.price !== undefined ? options.price : (priceOf(id) ?? SCRIPTED_PRICE),
    requests,
    get remaining() {
      return queue.length;
    },
    async complete(request, onEvent = () => {}) {
      request.signal?.throwIfAborted();
      const { signal: _signal, ...rest } = request;
      const recorded = structuredClone(rest);
      requests.push(recorded);
      const next = queue.shift();
      if (!next) {
        throw new Error(
          `Scripted model has no step left for request #${requests.length} (script had ${steps.length} steps). Add a step or check why the loop made another call.`,
        );
      }
      const step = typeof next === "function" ? next(structuredClone(recorded)) : next;
      if (isErrorStep(step)) {
        const { status, message } = step.error;
        throw new ModelError(message, status, status === 429 || status >= 500);
      }
      if (isCutStep(step)) {
        throw new ModelError(
          "Scripted stream was cut before the response finished.",
          undefined,
          true,
        );
      }
      return respond(step, id, onEvent);
    },
  };
}

function respond(
  step: ScriptResponse,
  modelId: string,
  onEvent: (event: ModelStreamEvent) => void,
): ModelResponse {
  const content = structuredClone(step.content);
  for (const block of content) {
    if (block.type === "text") onEvent({ type: "text_delta", text: block.text });
    if (block.type === "thinking") onEvent({ type: "thinking_delta", text: block.thinking });
    if (block.type === "tool_use")
      onEvent({ type: "tool_use_start", id: block.id, name: block.name });
  }
  return {
    content,
    stopReason: step.stopReason ?? defaultStopReason(content),
    usage: fillUsage(step.usage),
    model: step.model ?? modelId,
  };
}
