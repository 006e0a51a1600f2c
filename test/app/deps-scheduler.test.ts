import { describe, expect, it } from "vitest";
import { createDepsScheduler, type ScheduledRepository } from "../../src/app/deps-scheduler.js";
import type { DepsSchedule } from "../../src/deps/config.js";
import type { NewJob, SubmitResult } from "../../src/queue/types.js";

const repo = (name: string): ScheduledRepository => ({
  installationId: 1,
  owner: "o",
  repo: name,
  cloneUrl: `https://example.test/o/${name}.git`,
  defaultBranch: "main",
});

const at = (iso: string) => new Date(iso).getTime();
const weekly = (): DepsSchedule => ({ enabled: true, schedule: "0 6 * * 1", config: {} as never });

function setup(schedules: Record<string, DepsSchedule>, refreshMs = 0, securityEveryMs?: number) {
  let now = at("2026-11-29T12:00:00Z"); // a Sunday
  const runs: string[] = [];
  const seen = new Set<string>();
  let reads = 0;
  // A queue that stores: what the scheduler submitted, once per delivery id.
  const queue = {
    submitted: [] as NewJob[],
    async submit(job: NewJob): Promise<SubmitResult> {
      if (seen.has(job.deliveryId)) return { status: "duplicate" };
      seen.add(job.deliveryId);
      queue.submitted.push(job);
      runs.push((job.input as ScheduledRepository).repo);
      return { status: "queued", id: job.deliveryId };
    },
  };
  const scheduler = createDepsScheduler({
    listRepositories: async () => Object.keys(schedules).map(repo),
    scheduleOf: async (r) => {
      reads += 1;
      const schedule = schedules[r.repo];
      if (!schedule) throw new Error("no config");
      return schedule;
    },
    queue,
    clock: { now: () => now },
    refreshMs,
    ...(securityEveryMs !== undefined ? { securityEveryMs } : {}),
  });
  return {
    scheduler,
    runs,
    queue,
    reads: () => reads,
    setNow: (iso: string) => {
      now = at(iso);
    },
  };
}

describe("the dependency-bump scheduler", () => {
  it("queues a security-only run on the first tick and then every period, past the schedule", async () => {
    const s = setup(
      { web: weekly(), off: { enabled: false, reason: "no deps: section" } },
      0,
      15 * 60_000,
    );
    expect(await s.scheduler.tick()).toEqual(["deps:o/web#security"]);
    expect(s.queue.submitted[0]).toMatchObject({
      kind: "deps",
      key: "deps:o/web",
      deliveryId: "deps:o/web#security@2026-11-29T12:00:00.000Z",
      input: { repo: "web", securityOnly: true },
    });
    s.setNow("2026-11-29T12:10:00Z");
    expect(await s.scheduler.tick()).toEqual([]);
    s.setNow("2026-11-29T12:15:00Z");
    expect(await s.scheduler.tick()).toEqual(["deps:o/web#security"]);
    // The scheduled run looks for security fixes too, so the next check waits a full period.
    s.setNow("2026-11-30T06:00:00Z");
    expect(await s.scheduler.tick()).toEqual(["deps:o/web"]);
    expect(s.queue.submitted.at(-1)?.input).not.toHaveProperty("securityOnly");
    s.setNow("2026-11-30T06:14:00Z");
    expect(await s.scheduler.tick()).toEqual([]);
    expect(s.runs).toEqual(["web", "web", "web"]);
  });

  it("runs a repository once when its schedule fires, not at first sight", async () => {
    const s = setup({ web: weekly(), off: { enabled: false, reason: "no deps: section" } });
    expect(await s.scheduler.tick()).toEqual([]);
    s.setNow("2026-11-30T05:59:00Z");
    expect(await s.scheduler.tick()).toEqual([]);
    s.setNow("2026-11-30T06:00:30Z");
    expect(await s.scheduler.tick()).toEqual(["deps:o/web"]);
    s.setNow("2026-11-30T06:01:30Z");
    expect(await s.scheduler.tick()).toEqual([]);
    expect(s.runs).toEqual(["web"]);
    expect(s.queue.submitted[0]).toMatchObject({
      kind: "deps",
      key: "deps:o/web",
      deliveryId: "deps:o/web@2026-11-30T06:00:00.000Z",
      installationId: 1,
    });
    s.setNow("2026-12-07T06:00:10Z");
    expect(await s.scheduler.tick()).toEqual(["deps:o/web"]);
  });

  it("re-reads repositories and schedules only every refresh period", async () => {
    const s = setup({ web: weekly() }, 15 * 60_000);
    await s.scheduler.tick();
    s.setNow("2026-11-29T12:05:00Z");
    await s.scheduler.tick();
    expect(s.reads()).toBe(1);
    s.setNow("2026-11-29T12:16:00Z");
    await s.scheduler.tick();
    expect(s.reads()).toBe(2);
  });

  it("names a run by the minute it fired, so two App processes store it once", async () => {
    const one = setup({ web: weekly() });
    await one.scheduler.tick();
    one.setNow("2026-11-30T06:00:01Z");
    await one.scheduler.tick();
    const two = setup({ web: weekly() });
    await two.scheduler.tick();
    two.setNow("2026-11-30T06:00:59Z");
    await two.scheduler.tick();
    expect(two.queue.submitted[0]?.deliveryId).toBe(one.queue.submitted[0]?.deliveryId);
  });

  it("skips a repository whose config cannot be read and keeps the others going", async () => {
    const schedules: Record<string, DepsSchedule> = { web: weekly() };
    const s = setup(schedules);
    Object.defineProperty(schedules, "broken", { value: undefined, enumerable: true });
    await s.scheduler.tick();
    s.setNow("2026-11-30T06:00:00Z");
    expect(await s.scheduler.tick()).toEqual(["deps:o/web"]);
  });
});
