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
    expect((await other.read("j")).entries).toEqual([{ index: 0, entry: { from: "first" } }]);
    if (!b.crossProcessFeed) return;
    const heard: Array<[unknown, number]> = [];
    other.subscribe("j", (entry, index) => heard.push([entry, index]), 0);
    await vi.waitFor(() => expect(heard).toHaveLength(1));
    await first.append("j", { from: "first", n: 2 });
    await vi.waitFor(() =>
      expect(heard).toEqual([
        [{ from: "first" }, 0],
        [{ from: "first", n: 2 }, 1],
      ]),
    );
  });
});
