import type { Model } from "../../src/agent/model/model.js";
import { createScriptedModel, type ScriptStep } from "../../src/agent/model/scripted.js";
import type { RecordingModel } from "./app-harness.js";

/**
 * A scripted model that stops before answering request number `holdAt`
 * (1-based) until the test opens the gate, or the job is aborted (a
 * shutdown): a job caught mid-run, at a known point.
 */
export interface GatedModel extends RecordingModel {
  /** Resolves once request `holdAt` has arrived and is being held. */
  held: Promise<void>;
  open(): void;
}

export function createGatedModel(steps: ScriptStep[], holdAt: number): GatedModel {
  const inner = createScriptedModel(steps);
  let release: () => void = () => {};
  const gate = new Promise<void>((done) => {
    release = done;
  });
  let markHeld: () => void = () => {};
  const held = new Promise<void>((done) => {
    markHeld = done;
  });
  let calls = 0;
  const complete: Model["complete"] = async (request, onEvent) => {
    calls += 1;
    if (calls === holdAt) {
      markHeld();
      await new Promise<void>((done, fail) => {
        const signal = request.signal;
        const onAbort = () => fail(signal?.reason ?? new Error("aborted"));
        if (signal?.aborted) return onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        void gate.then(() => {
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
    get requests() {
      return inner.requests;
    },
    complete,
    held,
    open: release,
  };
}
