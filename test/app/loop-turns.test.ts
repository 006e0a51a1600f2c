import { describe, expect, it } from "vitest";
import { createLoopTurns } from "../../src/app/loop-turns.js";

const nextTurn = () => new Promise((done) => setImmediate(done));

describe("loop turns", () => {
  it("lets a few callers through per turn of the event loop, in order", async () => {
    const turns = createLoopTurns(3);
    const through: number[] = [];
    for (let i = 0; i < 8; i++) void turns.next().then(() => through.push(i));
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
    void turns.next().then(() => {
      later = true;
    });
    await nextTurn();
    expect(later).toBe(true);
  });

  it("holds everyone while a burst's connections keep opening, then lets them through in order", async () => {
    const turns = createLoopTurns(3, { holdMs: 1_000 });
    const through: number[] = [];
    // A connection opens while nothing waits: its delivery, and those of the
    // connections accepted on the next turns, wait until a turn accepts none.
    for (let i = 0; i < 5; i++) {
      turns.opened();
      void turns.next().then(() => through.push(i));
      await nextTurn();
      expect(through).toEqual([]);
    }
    await nextTurn();
    expect(through).toEqual([0, 1, 2]);
    await nextTurn();
    expect(through).toEqual([0, 1, 2, 3, 4]);
  });

  it("holds no longer than holdMs, and does not hold while callers already wait", async () => {
    let now = 0;
    const turns = createLoopTurns(2, { holdMs: 50, now: () => now });
    const through: number[] = [];
    turns.opened();
    for (let i = 0; i < 6; i++) void turns.next().then(() => through.push(i));
    turns.opened();
    await nextTurn();
    expect(through).toEqual([]);
    // Connections still opening, but the hold is up.
    now = 50;
    turns.opened();
    await nextTurn();
    expect(through).toEqual([0, 1]);
    // Callers wait already: a new connection is taken in turn with them.
    turns.opened();
    await nextTurn();
    expect(through).toEqual([0, 1, 2, 3]);
    turns.opened();
    await nextTurn();
    expect(through).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("starts a new hold after one whose delivery never came to wait", async () => {
    let now = 0;
    const turns = createLoopTurns(2, { holdMs: 50, now: () => now });
    // A connection whose delivery was never read to the end: no turn ends its hold.
    turns.opened();
    now = 1_000;
    const through: number[] = [];
    turns.opened();
    void turns.next().then(() => through.push(0));
    turns.opened();
    await nextTurn();
    expect(through).toEqual([]);
    await nextTurn();
    expect(through).toEqual([0]);
  });
});
