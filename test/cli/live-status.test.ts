import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLiveStatus } from "../../src/cli/live-status.js";

const CLEAR = "\r\u001b[2K";

/** What a status write shows: the line is cleared, then a spinner frame, a space and the text. */
function shown(write: string | undefined): string {
  expect(write?.startsWith(CLEAR)).toBe(true);
  return write?.slice(CLEAR.length + 2) ?? "";
}

function terminal(columns = 80) {
  const writes: string[] = [];
  return { writes, stream: { isTTY: true, columns, write: (t: string) => writes.push(t) } };
}

describe("the live status line", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows the time so far, redrawn about once a second, and clears itself", () => {
    const { writes, stream } = terminal();
    const status = createLiveStatus(stream, Date);
    status.start("run_shell npm test");
    expect(writes).toEqual([`${CLEAR}⠋ run_shell npm test`]);
    vi.advanceTimersByTime(12_000);
    expect(writes).toHaveLength(13);
    expect(shown(writes.at(-1))).toBe("run_shell npm test · 12s");
    vi.advanceTimersByTime(63_000);
    expect(shown(writes.at(-1))).toBe("run_shell npm test · 1m 15s");
    status.stop();
    expect(writes.at(-1)).toBe(CLEAR);
    const count = writes.length;
    vi.advanceTimersByTime(5_000);
    status.stop();
    expect(writes).toHaveLength(count);
  });

  it("starts over for the next thing, and never wraps a line it could not clear", () => {
    const { writes, stream } = terminal(20);
    const status = createLiveStatus(stream, Date);
    status.start("first");
    vi.advanceTimersByTime(3_000);
    expect(shown(writes.at(-1))).toBe("first · 3s");
    status.start("second");
    expect(writes.at(-2)).toBe(CLEAR);
    expect(shown(writes.at(-1))).toBe("second");
    status.start("a very long command line indeed");
    expect(shown(writes.at(-1))).toBe("a very long comm…");
    vi.advanceTimersByTime(30_000);
    expect(writes.every((w) => w.replace(CLEAR, "").length < 20)).toBe(true);
    status.stop();
  });

  it("off a terminal, writes a plain line every 30 s while a step runs, and nothing after", () => {
    const writes: string[] = [];
    const status = createLiveStatus({ write: (t: string) => writes.push(t) }, Date);
    status.start("Verifying: npm test");
    vi.advanceTimersByTime(29_000);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(32_000);
    expect(writes).toEqual([
      "… still running: Verifying: npm test · 30s\n",
      "… still running: Verifying: npm test · 1m 0s\n",
    ]);
    status.start("run_shell make");
    vi.advanceTimersByTime(10_000);
    status.stop();
    vi.advanceTimersByTime(60_000);
    expect(writes).toHaveLength(2);
    expect(writes.join("")).not.toContain("\u001b");
  });
});
