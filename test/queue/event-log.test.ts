import { readdirSync, readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDiskEventLog } from "../../src/queue/disk-event-log.js";
import type { JobEventLog } from "../../src/queue/event-log.js";
import { createRedisEventLog } from "../../src/queue/redis-event-log.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { useRedisQueues } from "./redis-fixtures.js";

/**
 * One event log contract, two back ends: a JSONL file per job (the embedded
 * queue) and a Redis stream per job with pub/sub fan-out. Indexes survive
 * trimming; a reader that reads, then subscribes from `next`, misses nothing
 * and sees nothing twice; a second instance (another process) reads what the
 * first wrote, and on Redis hears it live.
 */

const redis = useRedisQueues();
let opened: JobEventLog[] = [];
let connections: Redis[] = [];
let names = 0;

afterEach(async () => {
  await Promise.all(opened.map((log) => log.close()));
  for (const c of connections) c.disconnect();
  opened = [];
  connections = [];
});

interface Backend {
  /** Two instances on one store: the second is "another process". */
  open(cap?: number): Promise<{ first: JobEventLog; second: () => Promise<JobEventLog> }>;
  crossProcessFeed: boolean;
}

function disk(): Backend {
  return {
    crossProcessFeed: false,
    async open(cap) {
      const dir = await makeTempDir();
      const make = async () => {
        const log = await createDiskEventLog(dir, cap ? { cap } : {});
        opened.push(log);
        return log;
      };
      return { first: await make(), second: make };
    },
  };
}

function onRedis(): Backend {
  return {
    crossProcessFeed: true,
    async open(cap) {
      const name = `log${++names}`;
      const make = async () => {
        const connection = () => {
          const c = redis.raw.duplicate();
          connections.push(c);
          return c;
        };
        const log = createRedisEventLog({
          redis: connection(),
          connection,
          name,
          ...(cap ? { cap } : {}),
        });
        opened.push(log);
        return log;
      };
      return { first: await make(), second: make };
    },
  };
}

describe.each([
  { name: "disk", backend: disk },
  { name: "Redis", backend: onRedis },
])("the job event log on $name", ({ backend }) => {
  it("keeps entries in order with their indexes, and reads on from an index", async () => {
    const { first } = await backend().open();
    for (const n of [0, 1, 2]) await first.append("job-1", { n });
    await first.append("job-2", { other: true });
    expect(await first.read("job-1")).toEqual({
      entries: [
        { index: 0, entry: { n: 0 } },
        { index: 1, entry: { n: 1 } },
        { index: 2, entry: { n: 2 } },
      ],
      next: 3,
    });
    expect(await first.read("job-1", 2)).toEqual({
      entries: [{ index: 2, entry: { n: 2 } }],
      next: 3,
    });
    expect(await first.read("job-1", 3)).toEqual({ entries: [], next: 3 });
    expect(await first.read("nobody")).toEqual({ entries: [], next: 0 });
  });

  it("feeds subscribers live, and from an index without a gap or a repeat", async () => {
    const { first } = await backend().open();
    await first.append("j", "a");
    await first.append("j", "b");
    const live: unknown[] = [];
    const all: Array<[unknown, number]> = [];
    const stopLive = first.subscribe("j", (entry) => live.push(entry));
    const stopAll = first.subscribe("j", (entry, index) => all.push([entry, index]), 0);
    // Give the feed a moment to be live before the next append.
    await new Promise((done) => setTimeout(done, 100));
    await first.append("j", "c");
    await vi.waitFor(() =>
      expect(all).toEqual([
        ["a", 0],
        ["b", 1],
        ["c", 2],
      ]),
    );
    await vi.waitFor(() => expect(live).toEqual(["c"]));
    stopLive();
    stopAll();
    await first.append("j", "d");
    await new Promise((done) => setTimeout(done, 100));
    expect(live).toEqual(["c"]);
    expect(all).toHaveLength(3);
  });

  it("keeps the newest entries past its cap, each with its own index", async () => {
    // Redis trims whole nodes of its stream (100 entries): about the cap, never fewer.
    const { first } = await backend().open(10);
    await Promise.all(Array.from({ length: 400 }, (_, n) => first.append("j", n)));
    const { entries, next } = await first.read("j");
    expect(next).toBe(400);
    expect(entries.length).toBeGreaterThanOrEqual(10);
    expect(entries.length).toBeLessThan(250);
    expect(entries.at(-1)).toEqual({ index: 399, entry: 399 });
    for (const e of entries) expect(e.entry).toBe(e.index);
  });

  it("goes on from the last index after a restart, and starts a new job at 0", async () => {
    const { first, second } = await backend().open();
    await first.append("j", "a");
    await first.append("j", "b");
    await first.close();
    const restarted = await second();
    await restarted.append("j", "c");
    await restarted.append("new", "x");
    expect((await restarted.read("j")).entries).toEqual([
      { index: 0, entry: "a" },
      { index: 1, entry: "b" },
      { index: 2, entry: "c" },
    ]);
    expect(await restarted.read("new")).toEqual({ entries: [{ index: 0, entry: "x" }], next: 1 });
  });

  it("is read by another instance, and on Redis heard live there too", async () => {
    const b = backend();
    const { first, second } = await b.open();
    const other = await second();
    await first.append("j", { from: "first" });
    // On disk a new log's first line waits for a quiet moment (0.2 s) before it is written.
    await vi.waitFor(
      async () =>
        expect((await other.read("j")).entries).toEqual([{ index: 0, entry: { from: "first" } }]),
      { timeout: 3_000, interval: 50 },
    );
    // A log that has its file (or stream) takes each line at once.
    await first.append("j", { from: "first", n: 2 });
    expect((await other.read("j")).entries).toHaveLength(2);
    if (!b.crossProcessFeed) return;
    const heard: Array<[unknown, number]> = [];
    other.subscribe("j", (entry, index) => heard.push([entry, index]), 0);
    await vi.waitFor(() => expect(heard).toHaveLength(2));
    await first.append("j", { from: "first", n: 3 });
    await vi.waitFor(() =>
      expect(heard).toEqual([
        [{ from: "first" }, 0],
        [{ from: "first", n: 2 }, 1],
        [{ from: "first", n: 3 }, 2],
      ]),
    );
  });
});

/**
 * The embedded queue's intake: a burst's new jobs each start a log, and
 * creating its file was a large part of what a delivery cost the thread
 * that answers them (disk-event-log.ts). Their first lines wait for a quiet
 * moment; nothing that reads or hears the log can tell, and close writes
 * what is still waiting.
 */
describe("the job event log on disk, in a burst of new jobs", () => {
  const files = (dir: string) => readdirSync(dir).sort();

  it("writes the new logs' first lines after a quiet moment, and each is read and heard at once", async () => {
    const dir = await makeTempDir();
    const log = await createDiskEventLog(dir);
    opened.push(log);
    const heard: unknown[] = [];
    log.subscribe("job-0", (entry) => heard.push(entry));
    await Promise.all(Array.from({ length: 20 }, (_, n) => log.append(`job-${n}`, { n })));
    // During the burst: no file yet, but the line is heard and read, and reading writes nothing.
    expect(files(dir)).toEqual([]);
    expect(heard).toEqual([{ n: 0 }]);
    expect(await log.read("job-7")).toEqual({ entries: [{ index: 0, entry: { n: 7 } }], next: 1 });
    expect(await log.read("job-7", 1)).toEqual({ entries: [], next: 1 });
    expect(files(dir)).toEqual([]);
    // A job's next line writes the waiting one with it, in order.
    await log.append("job-3", { n: 3, again: true });
    expect(readFileSync(join(dir, "job-3.jsonl"), "utf8")).toBe(
      '{"i":0,"e":{"n":3}}\n{"i":1,"e":{"n":3,"again":true}}\n',
    );
    // The rest once the burst is over.
    await vi.waitFor(() => expect(files(dir)).toHaveLength(20), { timeout: 3_000, interval: 50 });
    expect(readFileSync(join(dir, "job-19.jsonl"), "utf8")).toBe('{"i":0,"e":{"n":19}}\n');
  });

  it("keeps a line it could not write, and the job's next append says why", async () => {
    const dir = await makeTempDir();
    const log = await createDiskEventLog(dir);
    opened.push(log);
    await log.append("j", "queued");
    // The folder gone before the quiet moment: the write fails in a timer, which must not throw.
    await rm(dir, { recursive: true });
    // A page's live feed meanwhile: its replay reads the waiting line from memory, no write to fail.
    const heard: unknown[] = [];
    log.subscribe("j", (entry) => heard.push(entry));
    log.subscribe("j", (entry) => heard.push(entry), 0);
    await vi.waitFor(() => expect(heard).toEqual(["queued"]));
    await new Promise((done) => setTimeout(done, 400));
    await expect(log.append("j", "running")).rejects.toThrow(/ENOENT/);
    await mkdir(dir);
    await log.append("j", "running again");
    expect(readFileSync(join(dir, "j.jsonl"), "utf8")).toBe(
      '{"i":0,"e":"queued"}\n{"i":1,"e":"running again"}\n',
    );
  });

  it("writes what waits when it closes, so the next instance goes on from it", async () => {
    const dir = await makeTempDir();
    const log = await createDiskEventLog(dir);
    await log.append("j", "queued");
    expect(files(dir)).toEqual([]);
    await log.close();
    expect(files(dir)).toEqual(["j.jsonl"]);
    const next = await createDiskEventLog(dir);
    opened.push(next);
    await next.append("j", "running");
    expect(await next.read("j")).toEqual({
      entries: [
        { index: 0, entry: "queued" },
        { index: 1, entry: "running" },
      ],
      next: 2,
    });
  });
});
