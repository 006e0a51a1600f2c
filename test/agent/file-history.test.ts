import { describe, expect, it } from "vitest";
import { FileHistory } from "../../src/agent/file-history.js";

const b = (text: string) => Buffer.from(text);
const meta = (turn: number, toolCallId = `call-${turn}`) => ({
  turn,
  toolCallId,
  tool: "edit_file",
});

describe("FileHistory", () => {
  it("groups changes by turn and merges repeated edits to one file within a turn", () => {
    const history = new FileHistory();
    history.record({ path: "a.ts", before: b("1"), after: b("2"), ...meta(1) });
    history.record({ path: "a.ts", before: b("2"), after: b("3"), ...meta(1, "call-1b") });
    history.record({ path: "b.ts", before: null, after: b("new"), ...meta(3) });

    const turns = history.turns();
    expect(turns.map((t) => t.turn)).toEqual([1, 3]);
    expect(turns[0]?.toolCallIds).toEqual(["call-1", "call-1b"]);
    expect(turns[0]?.files).toEqual([{ path: "a.ts", before: b("1"), after: b("3") }]);
    expect(turns[1]?.files).toEqual([{ path: "b.ts", before: null, after: b("new") }]);
  });

  it("ignores no-op records and drops files changed back within a span", () => {
    const history = new FileHistory();
    history.record({ path: "same.ts", before: b("x"), after: b("x"), ...meta(1) });
    history.record({ path: "a.ts", before: b("1"), after: b("2"), ...meta(1) });
    history.record({ path: "a.ts", before: b("2"), after: b("1"), ...meta(2) });
    history.record({ path: "c.ts", before: null, after: b("c"), ...meta(2) });
    expect(history.all()).toHaveLength(3);
    expect(history.netChanges()).toEqual([{ path: "c.ts", before: null, after: b("c") }]);
  });
});
