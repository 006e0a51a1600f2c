import { copyFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import { createLocalQueue } from "../../src/queue/local-queue.js";
import type { JobHandler, JobRecord } from "../../src/queue/types.js";
import { type JobInputs, jobInputSchemas } from "../../src/service/job-kinds/inputs.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { useRedisQueues } from "../queue/redis-fixtures.js";

/**
 * Records written before the kinds carried their input schemas (inputs
 * stored as whatever was submitted) still load, in both queues, and reach
 * the worker read with their kind's schema: one fixture per kind, as the
 * old code wrote it.
 */

const FIXTURES = join(import.meta.dirname, "../fixtures/old-job-records");
const KINDS = ["request", "deps", "base_moved"] as const;

const fixture = async (kind: string) =>
  JSON.parse(await readFile(join(FIXTURES, `${kind}.json`), "utf8")) as JobRecord;

/** A handler that only records what it was handed. */
function recording() {
  const runs: Array<JobRecord<JobInputs>> = [];
  const handler: JobHandler<JobInputs> = {
    run: async (job) => {
      runs.push(job.record);
      return { status: "done", conclusion: "success" };
    },
    giveUp: async () => {},
  };
  return { handler, runs };
}

/** What each kind's runner reads first, typed by the record's kind. */
function firstField(record: JobRecord<JobInputs>): string | undefined {
  switch (record.kind) {
    case "request":
      return record.inputs[0]?.repo.owner;
    case "deps":
      return record.inputs[0]?.owner;
    case "base_moved":
      return record.inputs[0]?.repo.owner;
  }
}

describe("old job records", () => {
  it("load from the embedded store and run, each read with its kind's schema", async () => {
    const dir = await makeTempDir();
    await mkdir(join(dir, "records"), { recursive: true });
    for (const kind of KINDS) {
      await copyFile(join(FIXTURES, `${kind}.json`), join(dir, "records", `old-${kind}.json`));
    }
    const errors: unknown[] = [];
    const queue = await createLocalQueue({
      dir,
      kinds: jobInputSchemas,
      onError: (error) => errors.push(error),
    });
    const { handler, runs } = recording();
    queue.startWorker(handler, { concurrency: 3 });
    await vi.waitFor(() => expect(runs).toHaveLength(3));
    await queue.onIdle();
    expect(errors).toEqual([]);
    expect(runs.map((r) => r.kind).sort()).toEqual([...KINDS].sort());
    expect(runs.map(firstField)).toEqual(["octo-org", "octo-org", "octo-org"]);
    for (const kind of KINDS) {
      const stored = await fixture(kind);
      const ran = runs.find((r) => r.kind === kind);
      expect(ran?.inputs).toEqual(stored.inputs.map((input) => jobInputSchemas[kind].parse(input)));
      expect(await queue.get(stored.id)).toMatchObject({ state: "done" });
    }
    await queue.close();
  });

  const redis = useRedisQueues();

  it("load from Redis, as BullMQ stored them, and run, each read with its kind's schema", async () => {
    const name = "old-records";
    const raw = new Redis(redis.url, { maxRetriesPerRequest: null });
    const bull = new Queue(name, { connection: raw });
    try {
      for (const kind of KINDS) {
        const {
          id,
          state: _state,
          attempts: _attempts,
          updatedAt: _updated,
          ...data
        } = await fixture(kind);
        await bull.add(kind, { ...data, coalesce: false, interruptions: 0 }, { jobId: id });
      }
    } finally {
      await bull.close();
      raw.disconnect();
    }
    const errors: unknown[] = [];
    const queue = await redis.open(name, {
      kinds: jobInputSchemas,
      onError: (error) => errors.push(error),
    });
    const { handler, runs } = recording();
    // The fixtures' queue is typed for any kind; it holds the service's.
    queue.startWorker(handler as unknown as JobHandler, { concurrency: 3 });
    await vi.waitFor(() => expect(runs).toHaveLength(3), { timeout: 10_000 });
    expect(errors).toEqual([]);
    expect(runs.map(firstField)).toEqual(["octo-org", "octo-org", "octo-org"]);
    for (const kind of KINDS) {
      const stored = await fixture(kind);
      expect(runs.find((r) => r.kind === kind)?.inputs).toEqual(
        stored.inputs.map((input) => jobInputSchemas[kind].parse(input)),
      );
    }
  });
});
