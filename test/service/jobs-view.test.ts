import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createLocalQueue } from "../../src/queue/local-queue.js";
import type {
  JobHandler,
  JobInputSchemas,
  JobQueue,
  JobResult,
  RunningJob,
} from "../../src/queue/types.js";
import { createJobsView } from "../../src/service/jobs-view/index.js";
import type { ViewEvent } from "../../src/service/jobs-view/types.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/**
 * The job pages' view over a queue: summaries with who asked, where, the
 * links and the stats, filtered by repository (and the set a viewer may
 * read), newest first, with each queued job's place in its installation's
 * line; the transcript stored and live; cancel and retry.
 */

const KINDS: JobInputSchemas = { request: z.unknown(), deps: z.unknown() };

function request(owner: string, name: string, number: number, login = "mona") {
  return {
    repo: { owner, name, htmlUrl: `https://github.com/${owner}/${name}` },
    requester: { login },
    source: { htmlUrl: `https://github.com/${owner}/${name}/issues/${number}#issuecomment-1` },
    target: { htmlUrl: `https://github.com/${owner}/${name}/issues/${number}` },
  };
}

let n = 0;
function submit(queue: JobQueue, kind: "request" | "deps", input: unknown, installationId = 1) {
  n += 1;
  return queue.submit({ kind, key: `k${n}`, deliveryId: `d${n}`, installationId, input });
}

function idOf(result: { status: string; id?: string }): string {
  if (!result.id) throw new Error(result.status);
  return result.id;
}

describe("the jobs view", () => {
  it("summarises jobs, filters them, and places queued ones in line", async () => {
    let now = 1_000;
    const queue = await createLocalQueue({
      kinds: KINDS,
      dir: await makeTempDir(),
      clock: { now: () => now++ },
    });
    const view = createJobsView({ queue });
    const a = idOf(await submit(queue, "request", request("Octo", "App", 1)));
    const b = idOf(
      await submit(queue, "deps", { owner: "octo", repo: "lib", installationId: 2 }, 2),
    );
    const c = idOf(await submit(queue, "request", request("octo", "app", 2, "hubot")));
    const all = await view.list();
    expect(all.map((s) => s.id)).toEqual([c, b, a]);
    expect(all[0]).toMatchObject({
      kind: "request",
      repo: { owner: "octo", name: "app" },
      requester: "hubot",
      triggerUrl: "https://github.com/octo/app/issues/2#issuecomment-1",
      state: "queued",
      queuePosition: 2,
      installationId: 1,
    });
    expect(all[1]).toMatchObject({
      kind: "deps",
      repo: { owner: "octo", name: "lib" },
      queuePosition: 1,
    });
    expect(all[2]?.queuePosition).toBe(1);
    expect((await view.list({ repo: "octo/APP" })).map((s) => s.id)).toEqual([c, a]);
    expect((await view.list({ repos: new Set(["octo/lib"]) })).map((s) => s.id)).toEqual([b]);
    expect(await view.list({ repos: new Set() })).toEqual([]);
    expect((await view.list({ installationId: 2 })).map((s) => s.id)).toEqual([b]);
    expect((await view.list({ limit: 1 })).map((s) => s.id)).toEqual([c]);
    expect(await view.get(a)).toMatchObject({ id: a, queuePosition: 1 });
    expect(await view.get("nope")).toBeUndefined();
    await queue.close();
  });

  it("shows a finished job's links and stats, its transcript, and controls it", async () => {
    const queue = await createLocalQueue({ kinds: KINDS, dir: await makeTempDir() });
    const view = createJobsView({ queue });
    const started: Array<{ job: RunningJob; finish(result: JobResult): void }> = [];
    const handler: JobHandler = {
      run: (running) =>
        new Promise<JobResult>((finish) => {
          started.push({ job: running, finish });
          running.signal.addEventListener("abort", () => finish({ status: "interrupted" }));
        }),
      giveUp: async () => {},
    };
    queue.startWorker(handler, { concurrency: 1 });
    const id = idOf(await submit(queue, "request", request("octo", "app", 1)));
    await vi.waitFor(() => expect(started).toHaveLength(1));
    const running = started[0];
    if (!running) throw new Error("not started");
    const live: Array<[ViewEvent, number]> = [];
    const stop = view.subscribe(id, (event, index) => live.push([event, index]), 0);
    await running.job.update({
      trackingComment: { id: 5, url: "https://github.com/octo/app/issues/1#issuecomment-5" },
      branch: "patchwright/fix-1",
      stats: { turns: 4, tokens: 900, costUsd: 0.12 },
    });
    await queue.log.append(id, { at: 1, type: "text", turn: 1, text: "hello" });
    running.finish({
      status: "done",
      conclusion: "success",
      pullRequest: { number: 9, url: "https://github.com/octo/app/pull/9" },
    });
    await vi.waitFor(async () => expect((await view.get(id))?.state).toBe("done"));
    expect(await view.get(id)).toMatchObject({
      turns: 4,
      tokens: 900,
      costUsd: 0.12,
      outcome: { conclusion: "success" },
      links: {
        pullRequest: "https://github.com/octo/app/pull/9",
        branch: "https://github.com/octo/app/tree/patchwright/fix-1",
        comment: "https://github.com/octo/app/issues/1#issuecomment-5",
      },
    });
    const { events, next } = await view.events(id);
    expect(events.map((e) => (e.type === "state" ? e.state : e.type))).toEqual([
      "queued",
      "running",
      "text",
      "done",
    ]);
    await vi.waitFor(() => expect(live.map(([, index]) => index)).toEqual([0, 1, 2, 3]));
    stop();
    expect((await view.events(id, next)).events).toEqual([]);
    expect(await view.cancel(id, "mona")).toBe("finished");
    expect(await view.retry(id, "mona")).toBe("not_failed");
    // Another job, cancelled while it runs: failed, cancelled by whom.
    const other = idOf(await submit(queue, "request", request("octo", "app", 2)));
    await vi.waitFor(() => expect(started).toHaveLength(2));
    expect(await view.cancel(other, "mona")).toBe("stopping");
    await vi.waitFor(async () =>
      expect(await view.get(other)).toMatchObject({ state: "failed", cancelledBy: "mona" }),
    );
    await queue.close();
  });
});
