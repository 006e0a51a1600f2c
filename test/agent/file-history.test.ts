import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileHistory } from "../../src/agent/file-history.js";
import { makeTempDir } from "../helpers/temp-dir.js";

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

  it("undoes a turn on disk: restores edited files and removes created ones", async () => {
    const root = await makeTempDir();
    await writeFile(join(root, "a.ts"), "changed");
    await writeFile(join(root, "new.ts"), "created");
    const history = new FileHistory();
    history.record({ path: "a.ts", before: b("original"), after: b("changed"), ...meta(2) });
    history.record({ path: "new.ts", before: null, after: b("created"), ...meta(2) });

    const undone = await history.undoTurn(2, root);
    expect(undone.map((c) => c.path)).toEqual(["a.ts", "new.ts"]);
    expect(await readFile(join(root, "a.ts"), "utf8")).toBe("original");
    await expect(readFile(join(root, "new.ts"))).rejects.toThrow();
    expect(history.turns()).toEqual([]);
  });

  it("refuses to undo a turn whose files a later turn changed again", async () => {
    const root = await makeTempDir();
    const history = new FileHistory();
    history.record({ path: "a.ts", before: b("0"), after: b("1"), ...meta(1) });
    history.record({ path: "a.ts", before: b("1"), after: b("2"), ...meta(2) });
    await expect(history.undoTurn(1, root)).rejects.toThrow(/later turns changed a\.ts/);
    expect(history.turns()).toHaveLength(2);
  });
});
