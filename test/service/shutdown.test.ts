import { afterEach, describe, expect, it, vi } from "vitest";
import { type SignalStopOptions, stopOnSignals } from "../../src/service/shutdown.js";

/** A signal source, a log and the two ways out, recorded. */
function harness(stop: () => Promise<void>, times: { graceMs: number; boundMs?: number }) {
  let handler: ((signal?: string) => void) | undefined;
  const lines: string[] = [];
  const ends: Array<{ how: "stopped" | "exitNow"; code: number }> = [];
  const options: SignalStopOptions = {
    subscribe(onSignal) {
      handler = onSignal;
      return () => {
        handler = undefined;
      };
    },
    stop,
    log: {
      info: (_, message) => lines.push(`info ${message}`),
      warn: (_, message) => lines.push(`warn ${message}`),
      error: (_, message) => lines.push(`error ${message}`),
    },
    ...times,
    stopped: (code) => ends.push({ how: "stopped", code }),
    exitNow: (code) => ends.push({ how: "exitNow", code }),
  };
  stopOnSignals(options);
  return {
    signal: (name = "SIGTERM") => handler?.(name),
    subscribed: () => handler !== undefined,
    lines,
    ends,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("stopping on SIGTERM", () => {
  it("stops once, reports 0 and stops listening", async () => {
    const stop = vi.fn(async () => {});
    const run = harness(stop, { graceMs: 1_000 });
    run.signal();
    await vi.waitFor(() => expect(run.ends).toEqual([{ how: "stopped", code: 0 }]));
    expect(stop).toHaveBeenCalledTimes(1);
    expect(run.lines.at(-1)).toBe("info stopped");
    expect(run.subscribed()).toBe(false);
  });

  it("reports 1 and says so when the stop fails", async () => {
    const run = harness(() => Promise.reject(new Error("Redis went away")), { graceMs: 1_000 });
    run.signal();
    await vi.waitFor(() => expect(run.ends).toEqual([{ how: "stopped", code: 1 }]));
    expect(run.lines).toContain("error could not stop cleanly");
  });

  it("exits at once on a second signal", () => {
    const run = harness(() => new Promise(() => {}), { graceMs: 60_000 });
    run.signal("SIGTERM");
    expect(run.ends).toEqual([]);
    run.signal("SIGINT");
    expect(run.ends).toEqual([{ how: "exitNow", code: 1 }]);
    expect(run.lines).toContain("warn second signal: exiting now");
  });

  it("exits when the stop is still going past the grace period and the bound", () => {
    vi.useFakeTimers();
    // A job that never returns from its abort (a write queued behind a dead process's lock).
    const run = harness(() => new Promise(() => {}), { graceMs: 60_000, boundMs: 30_000 });
    run.signal();
    vi.advanceTimersByTime(89_999);
    expect(run.ends).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(run.ends).toEqual([{ how: "exitNow", code: 1 }]);
    expect(run.lines.at(-1)).toMatch(/^error still stopping after the grace period and the bound/);
  });

  it("does not exit past the bound when the stop ended in time", async () => {
    vi.useFakeTimers();
    const run = harness(() => new Promise<void>((done) => setTimeout(done, 70_000)), {
      graceMs: 60_000,
      boundMs: 30_000,
    });
    run.signal();
    await vi.advanceTimersByTimeAsync(70_000);
    expect(run.ends).toEqual([{ how: "stopped", code: 0 }]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(run.ends).toEqual([{ how: "stopped", code: 0 }]);
  });
});
