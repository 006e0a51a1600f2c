import { describe, expect, it } from "vitest";
import { createLoopTurns } from "../../src/app/loop-turns.js";

const nextTurn = () => new Promise((done) => setImmediate(done));

describe("loop turns", () => {
  it("lets a few callers through per turn of the event loop, in order", async () => {
    const turn = createLoopTurns(3);
    const through: number[] = [];
    for (let i = 0; i < 8; i++) void turn().then(() => through.push(i));
    expect(through).toEqual([]);
    const seen: number[] = [];
    for (let t = 0; t < 4; t++) {
      await nextTurn();
      seen.push(through.length);
    }
    expect(seen).toEqual([3, 6, 8, 8]);
    expect(through).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // Idle again: the next caller goes through on the next turn.
    let later = false;
    void turn().then(() => {
      later = true;
    });
    await nextTurn();
    expect(later).toBe(true);
  });
});
