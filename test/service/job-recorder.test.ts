import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/agent/redact.js";
import { createDiskEventLog } from "../../src/queue/disk-event-log.js";
import { createJobRecorder } from "../../src/service/jobs-view/recorder.js";
import type { ViewEvent } from "../../src/service/jobs-view/types.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/**
 * What a job page shows is written by the recorder: every event through the
 * job's redactor before it is stored, tool inputs compact and cut, outputs
 * as their tail, an edit as its diff, a policy denial as a denial, cost and
 * tokens as running totals kept for the record too.
 */

const SECRET = "ghs_abcdefghijklmnopqrstuvwxyz0123456789";
const USAGE = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };

async function recorded(run: (r: ReturnType<typeof createJobRecorder>) => void) {
  const log = await createDiskEventLog(await makeTempDir());
  let now = 1_000;
  const recorder = createJobRecorder({
    log,
    jobId: "job-1",
    redact: createRedactor([SECRET]),
    clock: { now: () => now++ },
    stats: { turns: 2, tokens: 50, costUsd: 0.5 },
  });
  run(recorder);
  await recorder.flush();
  const { entries } = await log.read("job-1");
  await log.close();
  return { events: entries.map((e) => e.entry as ViewEvent), stats: recorder.stats() };
}

describe("the job recorder", () => {
  it("stores the transcript redacted, with denials, diffs and running totals", async () => {
    const { events, stats } = await recorded(({ events: e, report }) => {
      e.step?.("Preparing the workspace");
      e.agent?.({ type: "turn_start", turn: 1 });
      e.agent?.({ type: "text_delta", turn: 1, text: "Look" });
      e.agent?.({ type: "text", turn: 1, text: `Looking; the token is ${SECRET}` });
      e.agent?.({
        type: "tool_call",
        turn: 1,
        id: "t1",
        name: "run_shell",
        input: { command: `curl -H "Authorization: ${SECRET}" x` },
        summary: "",
      });
      e.agent?.({
        type: "tool_result",
        turn: 1,
        id: "t1",
        name: "run_shell",
        content: "Denied by policy: curl is not allowed",
        isError: true,
        durationMs: 1,
      });
      e.agent?.({
        type: "tool_call",
        turn: 1,
        id: "t2",
        name: "edit_file",
        input: { path: "a.txt" },
        summary: "",
      });
      e.agent?.({
        type: "file_change",
        turn: 1,
        toolCallId: "t2",
        path: "a.txt",
        before: Buffer.from("one\n"),
        after: Buffer.from(`two ${SECRET}\n`),
      });
      e.agent?.({
        type: "tool_result",
        turn: 1,
        id: "t2",
        name: "edit_file",
        content: "Edited a.txt",
        isError: false,
        durationMs: 1,
      });
      e.agent?.({
        type: "tool_result",
        turn: 1,
        id: "t3",
        name: "run_shell",
        content: `${"x".repeat(10_000)}\nexit 0`,
        isError: false,
        durationMs: 1,
      });
      e.agent?.({
        type: "usage",
        turn: 1,
        usage: USAGE,
        costUsd: 0.25,
        totalUsage: USAGE,
        totalCostUsd: 0.25,
      });
      e.checkpoint?.("abc123");
      e.pushed?.("patchwright/fix-1");
      report(`Done. ${SECRET}`, "success");
    });
    const text = JSON.stringify(events);
    expect(text).not.toContain(SECRET);
    expect(events.map((e) => e.type)).toEqual([
      "step",
      "text",
      "tool_call",
      "denied",
      "tool_call",
      "tool_result",
      "tool_result",
      "usage",
      "checkpoint",
      "pushed",
      "report",
    ]);
    expect(events[3]).toMatchObject({
      type: "denied",
      name: "run_shell",
      reason: "curl is not allowed",
    });
    const edit = events[5] as Extract<ViewEvent, { type: "tool_result" }>;
    expect(edit.tail).toContain("-one");
    expect(edit.tail).toContain("+two [redacted");
    const output = events[6] as Extract<ViewEvent, { type: "tool_result" }>;
    expect(output.tail.length).toBeLessThan(4_200);
    expect(output.tail.endsWith("exit 0")).toBe(true);
    // Cumulative over the job: earlier attempts' stats included.
    expect(events[7]).toMatchObject({ type: "usage", costUsd: 0.75 });
    expect(stats).toEqual({ turns: 3, tokens: 170, costUsd: 0.75 });
    for (const event of events) expect(event.at).toBeTypeOf("number");
  });
});
