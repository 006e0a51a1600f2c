import { isDeepStrictEqual } from "node:util";
import {
  addUsage,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
} from "./model.js";

/**
 * A model request sent before its caller asked for it: the agent's first
 * turn, sent while the workspace is still being checked out (the prompt
 * needs the repository's facts, not its files). The session asks for its
 * first turn as usual; when that request is the very one sent early (the
 * same system prompt, messages, tools and limits, after redaction), it gets
 * the early answer, else the early request is aborted and its own is sent.
 * So the conversation is always the one the finished checkout gives, and
 * no tool can run before the session (and its workspace) is there.
 */
export interface EarlyTurn {
  /** The model it was sent to; only a session on that model can take it. */
  readonly model: Model;
  /** The request as sent (after redaction), without its signal. */
  readonly request: ModelRequest;
  /**
   * The answer, when `request` is the early one (its stream events so far
   * replayed to `onEvent`, the rest passed on; `signal` aborts it); else
   * undefined, and the early request is given up. Answers once.
   */
  take(
    request: ModelRequest,
    onEvent?: (event: ModelStreamEvent) => void,
  ): Promise<ModelResponse> | undefined;
  /** Aborts the early request when nothing took it (the job stopped before the agent). */
  discard(): void;
  /**
   * An answer that arrived and was not taken: it was paid for, so the
   * session counts it with its own first turn.
   */
  unused(): ModelResponse | undefined;
}

/** Sends `request` to `model` now; `signal` (the job's) aborts it as it would the loop's. */
export function sendEarlyTurn(
  model: Model,
  request: ModelRequest,
  signal?: AbortSignal,
): EarlyTurn {
  const { signal: _own, ...sent } = request;
  const controller = new AbortController();
  const abort = () => controller.abort(signal?.reason);
  if (signal?.aborted) abort();
  signal?.addEventListener("abort", abort, { once: true });
  const buffered: ModelStreamEvent[] = [];
  let listener: ((event: ModelStreamEvent) => void) | undefined;
  let settled: ModelResponse | undefined;
  let state: "waiting" | "taken" | "given_up" = "waiting";
  const response = model
    .complete({ ...sent, signal: controller.signal }, (event) => {
      if (listener) listener(event);
      else buffered.push(event);
    })
    .then((answer) => {
      settled = answer;
      return answer;
    })
    .finally(() => signal?.removeEventListener("abort", abort));
  // Nobody may ever take it: its failure is the taker's to see, or nobody's.
  response.catch(() => {});
  const giveUp = () => {
    if (state !== "waiting") return;
    state = "given_up";
    if (!settled) controller.abort(new Error("the early first turn was not used"));
  };
  return {
    model,
    request: sent,
    take(request, onEvent) {
      const { signal: callerSignal, ...asked } = request;
      if (state !== "waiting") return undefined;
      if (!isDeepStrictEqual(asked, sent)) {
        giveUp();
        return undefined;
      }
      state = "taken";
      for (const event of buffered.splice(0)) onEvent?.(event);
      listener = (event) => onEvent?.(event);
      if (callerSignal?.aborted) controller.abort(callerSignal.reason);
      callerSignal?.addEventListener("abort", () => controller.abort(callerSignal.reason), {
        once: true,
      });
      return response;
    },
    discard: giveUp,
    unused: () => (state === "given_up" ? settled : undefined),
  };
}

/**
 * `model`, whose first request is answered by `early` when it is the same
 * request; an early answer that came and was not used is added to the
 * first turn's usage (it was paid for).
 */
export function withEarlyTurn(model: Model, early: EarlyTurn | undefined): Model {
  if (!early) return model;
  let first = true;
  return {
    id: model.id,
    contextWindow: model.contextWindow,
    ...(model.spec === undefined ? {} : { spec: model.spec }),
    ...(model.price === undefined ? {} : { price: model.price }),
    complete(request, onEvent) {
      if (!first) return model.complete(request, onEvent);
      first = false;
      const taken = early.model === model ? early.take(request, onEvent) : undefined;
      if (taken) return taken;
      early.discard();
      return model.complete(request, onEvent).then((response) => {
        const paid = early.unused();
        return paid ? { ...response, usage: addUsage(response.usage, paid.usage) } : response;
      });
    },
  };
}
