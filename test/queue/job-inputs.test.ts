import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { JobInputError } from "../../src/queue/job-inputs.js";
import { createLocalQueue } from "../../src/queue/local-queue.js";
import type { JobHandler, JobInputSchemas, JobRecord } from "../../src/queue/types.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { useRedisQueues } from "./redis-fixtures.js";

/**
 * The queue reads every input with its kind's schema. A record of a kind
 * it does not hold, or with an input its schema refuses (written by another
 * version), fails alone, said in the log and in its outcome; the worker
 * runs the next job. A submit with such an input is refused.
 */

const KINDS: JobInputSchemas = { greet: z.object({ name: z.string().min(1) }) };

const stored = (id: string, kind: string, input: unknown) => ({
  id,
  kind,
  key: `k-${id}`,
  deliveryId: `d-${id}`,
  installationId: 1,
  inputs: [input],
  state: "queued",
  attempts: 0,
  createdAt: 1,
  updatedAt: 1,
});

function recording() {
  const runs: JobRecord[] = [];
  const gaveUp: JobRecord[] = [];
  const handler: JobHandler = {
    run: async (job) => {
      runs.push(job.record);
      return { status: "done", conclusion: "success" };
    },
    giveUp: async (record) => {
      gaveUp.push(record);
    },
  };
  return { handler, runs, gaveUp };
}

describe("the embedded queue, reading inputs", () => {
  it("fails a record of an unknown kind, or with an input its schema refuses, and runs the rest", async () => {
    const dir = await makeTempDir();
    await mkdir(join(dir, "records"), { recursive: true });
    const records = [
      stored("mystery", "mystery", { name: "x" }),
      stored("broken", "greet", { name: 42 }),
      stored("fine", "greet", { name: "octocat" }),
    ];
    for (const record of records) {
      await writeFile(join(dir, "records", `${record.id}.json`), JSON.stringify(record));
    }
    const errors: unknown[] = [];
    const queue = await createLocalQueue({
      dir,
      kinds: KINDS,
      onError: (error) => errors.push(error),
    });
    const { handler, runs, gaveUp } = recording();
    queue.startWorker(handler, { concurrency: 1 });
    await vi.waitFor(async () => expect((await queue.get("fine"))?.state).toBe("done"));
    await queue.onIdle();
    expect(runs.map((r) => r.id)).toEqual(["fine"]);
    expect(gaveUp).toEqual([]);
    expect(errors).toHaveLength(2);
    expect(errors.every((e) => e instanceof JobInputError)).toBe(true);
    expect(await queue.get("mystery")).toMatchObject({
      state: "failed",
      outcome: {
        conclusion: "failure",
        message: 'job mystery: this version does not run "mystery" jobs',
      },
    });
    const broken = await queue.get("broken");
    expect(broken?.state).toBe("failed");
    expect(broken?.outcome?.message).toMatch(
      /^job broken: its "greet" input does not match .*name/,
    );
    await queue.close();
  });

  it("refuses a submit whose input its kind's schema refuses, or of a kind it does not hold", async () => {
    const dir = await makeTempDir();
    const queue = await createLocalQueue({ dir, kinds: KINDS });
    const base = { key: "o/r#1", deliveryId: "d-1", installationId: 1 };
    await expect(queue.submit({ ...base, kind: "greet", input: { name: "" } })).rejects.toThrow(
      JobInputError,
    );
    await expect(queue.submit({ ...base, kind: "mystery", input: {} })).rejects.toThrow(
      'this version does not run "mystery" jobs',
    );
    // Nothing was stored or claimed: the same delivery, with a good input, is taken.
    expect(
      await queue.submit({ ...base, kind: "greet", input: { name: "octocat" } }),
    ).toMatchObject({ status: "queued" });
    await queue.close();
  });
});

describe("the Redis queue, reading inputs", () => {
  const redis = useRedisQueues();

  it("fails a job of an unknown kind, or with an input its schema refuses, and runs the rest", async () => {
    const name = "inputs";
    const raw = new Redis(redis.url, { maxRetriesPerRequest: null });
    const bull = new Queue(name, { connection: raw });
    try {
      for (const { id, state: _s, attempts: _a, updatedAt: _u, ...data } of [
        stored("mystery", "mystery", { name: "x" }),
        stored("broken", "greet", { name: 42 }),
      ]) {
        await bull.add(data.kind, { ...data, coalesce: false, interruptions: 0 }, { jobId: id });
      }
    } finally {
      await bull.close();
      raw.disconnect();
    }
    const errors: unknown[] = [];
    const queue = await redis.open(name, { kinds: KINDS, onError: (error) => errors.push(error) });
    const { handler, runs, gaveUp } = recording();
    queue.startWorker(handler, { concurrency: 1 });
    const fine = await queue.submit({
      kind: "greet",
      key: "o/r#9",
      deliveryId: "d-fine",
      input: { name: "octocat" },
    });
    const fineId = fine.status === "queued" ? fine.id : "";
    await vi.waitFor(async () => expect((await queue.get(fineId))?.state).toBe("done"), {
      timeout: 10_000,
    });
    await vi.waitFor(async () => expect((await queue.get("broken"))?.state).toBe("failed"));
    await vi.waitFor(async () => expect((await queue.get("mystery"))?.state).toBe("failed"));
    expect(runs.map((r) => r.id)).toEqual([fineId]);
    expect(gaveUp).toEqual([]);
    expect(errors.filter((e) => e instanceof JobInputError)).toHaveLength(2);
    expect((await queue.get("mystery"))?.outcome).toEqual({
      conclusion: "failure",
      message: 'job mystery: this version does not run "mystery" jobs',
    });
    expect((await queue.get("broken"))?.outcome?.message).toMatch(
      /^job broken: its "greet" input does not match .*name/,
    );
  });
});
