import type { Model } from "../../src/agent/model/model.js";
import { createScriptedModel, type ScriptStep } from "../../src/agent/model/scripted.js";
import type { RecordingModel } from "./app-harness.js";

/**
 * A scripted model that holds each of the requests named in `holdAt`
 * (1-based) until the test releases it, or the job is aborted (cancel,
 * shutdown): a job that moves one turn at a time while someone watches.
 * gated-model.ts is the one-hold case.
 */
export interface HeldModel extends RecordingModel {
  /** Resolves once request `n` has arrived and is being held. */
  arrived(n: number): Promise<void>;
  release(n: number): void;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export function createHeldModel(steps: ScriptStep[], holdAt: number[]): HeldModel {
  const inner = createScriptedModel(steps);
  const holds = new Map(holdAt.map((n) => [n, { arrived: deferred(), gate: deferred() }]));
  const hold = (n: number) => {
    const found = holds.get(n);
    if (!found) throw new Error(`request ${n} is not held (held: ${holdAt.join(", ")})`);
    return found;
  };
  let calls = 0;
  const complete: Model["complete"] = async (request, onEvent) => {
    calls += 1;
    const held = holds.get(calls);
    if (held) {
      held.arrived.resolve();
      await new Promise<void>((done, fail) => {
        const signal = request.signal;
        const onAbort = () => fail(signal?.reason ?? new Error("aborted"));
        if (signal?.aborted) return onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        void held.gate.promise.then(() => {
          signal?.removeEventListener("abort", onAbort);
          done();
        });
      });
    }
    return inner.complete(request, onEvent);
  };
  return {
    id: inner.id,
    contextWindow: inner.contextWindow,
    ...(inner.price !== undefined ? { price: inner.price } : {}),
    get requests() {
      return inner.requests;
    },
    complete,
    arrived: (n) => hold(n).arrived.promise,
    release: (n) => hold(n).gate.resolve(),
  };
}
