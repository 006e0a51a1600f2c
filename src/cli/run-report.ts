import type { AgentResult } from "../agent/loop.js";
import { emptyUsage } from "../agent/model/model.js";
import type { Redactor } from "../agent/redact.js";
import type { Transcript } from "../agent/transcript.js";
import type { ChangeResult } from "../change/change.js";
import type { RunArgs } from "./args.js";
import type { CliIo } from "./cli-io.js";
import { createColors } from "./colors.js";
import { renderJobSummary, summarizeJob } from "./job-summary.js";
import { renderOutputTail, renderTotals } from "./render.js";

export interface RunOutcome {
  /** Absent when the run stopped before the agent started (or failed to). */
  result?: AgentResult | undefined;
  job?: ChangeResult | undefined;
  interrupted: boolean;
}

/**
 * How every run ends, interrupted or not: the run_end record, the job's
 * summary and the totals (turns, tokens, cost, transcript path), or one JSON
 * summary line. Returns the exit code.
 */
export function reportRun(
  run: {
    args: RunArgs;
    io: CliIo;
    redact: Redactor;
    transcript: Transcript;
    started: number;
  },
  { result, job, interrupted }: RunOutcome,
): number {
  const { args, io, redact } = run;
  const stopReason = result?.stopReason ?? (interrupted ? "aborted" : "error");
  const totals = {
    turns: result?.turns ?? 0,
    usage: result?.usage ?? emptyUsage(),
    costUsd: result?.costUsd ?? 0,
    durationMs: io.clock.now() - run.started,
    transcriptPath: run.transcript.path,
  };
  const jobSummary = job ? { job: summarizeJob(job) } : {};
  run.transcript.write({ type: "run_end", stopReason, ...totals, ...jobSummary });
  if (args.json) {
    io.stdout.write(
      `${JSON.stringify({ type: "summary", stopReason, ...totals, ...jobSummary })}\n`,
    );
  } else {
    // A failing verify's output is the job summary's to show; a passing one only on request.
    if (args.verbose && job?.verify?.passed) {
      const colors = createColors(io.stdout.isTTY === true && !io.env.NO_COLOR);
      io.stdout.write(
        `\nverify output:\n${redact(renderOutputTail(job.verify.outputTail, colors))}\n`,
      );
    }
    if (job) io.stdout.write(`\n${redact(renderJobSummary(job))}\n`);
    io.stderr.write(`\n${renderTotals(totals)}\n`);
  }
  if (interrupted || stopReason === "aborted") return 130;
  if (job && (job.error || job.verify?.passed === false)) return 1;
  return stopReason === "end_turn" ? 0 : 1;
}
