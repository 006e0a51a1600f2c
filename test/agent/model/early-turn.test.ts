import { describe, expect, it } from "vitest";
import { sendEarlyTurn, withEarlyTurn } from "../../../src/agent/model/early-turn.js";
import type {
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
} from "../../../src/agent/model/model.js";
import { createScriptedModel } from "../../../src/agent/model/scripted.js";
import { reply } from "../../helpers/model-script.js";

const REQUEST: ModelRequest = {
  system: ["You are patchwright.", "Environment: /work"],
  messages: [{ role: "user", content: [{ type: "text", text: "Tidy up" }] }],
  tools: [{ name: "read_file", description: "Reads a file", input_schema: { type: "object" } }],
  maxTokens: 16_384,
};

/** A model whose answers wait for the test; records each request's signal and events. */
function heldModel() {
  const calls: Array<{
    request: ModelRequest;
    onEvent?: ((event: ModelStreamEvent) => void) | undefined;
    answer(response: ModelResponse): void;
  }> = [];
  const model: Model = {
    id: "claude-held",
    contextWindow: 200_000,
    complete(request, onEvent) {
      return new Promise((answer, fail) => {
        request.signal?.addEventListener("abort", () => fail(request.signal?.reason), {
          once: true,
        });
        calls.push({ request, onEvent, answer });
      });
    },
  };
  return { model, calls };
}

const ANSWER: ModelResponse = {
  content: [{ type: "text", text: "Nothing to change." }],
  stopReason: "end_turn",
  usage: { inputTokens: 100, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
  model: "claude-held",
};

describe("the early first turn", () => {
  it("answers the session's first request when it is the same request, once", async () => {
    const inner = createScriptedModel([reply("early answer"), reply("second turn")]);
    const early = sendEarlyTurn(inner, REQUEST);
    const model = withEarlyTurn(inner, early);
    const events: ModelStreamEvent[] = [];
    const first = await model.complete(
      // An equal request, not the same object, with the loop's signal.
      { ...structuredClone(REQUEST), signal: new AbortController().signal },
      (event) => events.push(event),
    );
    expect(first.content).toEqual([{ type: "text", text: "early answer" }]);
    // Its stream, though it came before anyone listened, is the session's to show.
    expect(events).toContainEqual({ type: "text_delta", text: "early answer" });
    // The second turn is the model's own; the early answer is not given twice.
    const second = await model.complete(REQUEST);
    expect(second.content).toEqual([{ type: "text", text: "second turn" }]);
    expect(inner.requests).toHaveLength(2);
  });

  it("is aborted, and the session's own request sent, when the first request differs", async () => {
    const { model: inner, calls } = heldModel();
    const early = sendEarlyTurn(inner, REQUEST);
    const model = withEarlyTurn(inner, early);
    const otherSystem = { ...REQUEST, system: ["You are patchwright.", "Environment: /elsewhere"] };
    const own = model.complete(otherSystem);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.request.signal?.aborted).toBe(true);
    expect(calls[1]?.request.system).toEqual(otherSystem.system);
    calls[1]?.answer(ANSWER);
    expect(await own).toEqual(ANSWER);
  });

  it("counts an early answer that came and was not used with the first turn: it was paid for", async () => {
    const { model: inner, calls } = heldModel();
    const early = sendEarlyTurn(inner, REQUEST);
    calls[0]?.answer(ANSWER);
    await new Promise((done) => setImmediate(done));
    const model = withEarlyTurn(inner, early);
    const own = model.complete({ ...REQUEST, maxTokens: 1_000 });
    calls[1]?.answer({ ...ANSWER, usage: { ...ANSWER.usage, inputTokens: 7 } });
    expect((await own).usage).toEqual({
      inputTokens: 107,
      outputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });

  it("is not taken by a session on another model", async () => {
    const { model: inner, calls } = heldModel();
    const other = heldModel();
    const early = sendEarlyTurn(inner, REQUEST);
    const own = withEarlyTurn(other.model, early).complete(REQUEST);
    expect(calls[0]?.request.signal?.aborted).toBe(true);
    expect(other.calls).toHaveLength(1);
    other.calls[0]?.answer(ANSWER);
    await own;
  });

  it("is aborted by the session's signal once taken, and by the job's before", async () => {
    const { model: inner, calls } = heldModel();
    const job = new AbortController();
    const early = sendEarlyTurn(inner, REQUEST, job.signal);
    const session = new AbortController();
    const taken = withEarlyTurn(inner, early).complete({ ...REQUEST, signal: session.signal });
    session.abort(new Error("time limit"));
    await expect(taken).rejects.toThrow("time limit");
    expect(calls).toHaveLength(1);

    const cancelled = sendEarlyTurn(inner, REQUEST, job.signal);
    job.abort(new Error("the workflow run was cancelled"));
    expect(calls[1]?.request.signal?.aborted).toBe(true);
    // Nobody takes a cancelled turn's failure but the session that asks.
    await expect(withEarlyTurn(inner, cancelled).complete(REQUEST)).rejects.toThrow("cancelled");
  });

  it("is aborted when discarded before anyone took it, and then answers nobody", async () => {
    const { model: inner, calls } = heldModel();
    const early = sendEarlyTurn(inner, REQUEST);
    early.discard();
    expect(calls[0]?.request.signal?.aborted).toBe(true);
    expect(early.take(REQUEST)).toBeUndefined();
  });
});
