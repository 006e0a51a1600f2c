import type { AgentStopReason } from "../../agent/events.js";
import type { NetChange } from "../../agent/file-history.js";
import { errorMessage } from "../../error-message.js";
import { readFiles } from "../group/checkout.js";
import type { GroupContext } from "../group/context.js";
import type { AgentAttempt } from "../group/group-result.js";
import { type FixRequest, runAgentFix } from "./agent-fix.js";
import {
  type FixCheckpointTarget,
  loadFixCheckpoint,
  type SavedFix,
  saveFixCheckpoint,
  updatesKey,
} from "./fix-checkpoint.js";

/**
 * The agent's fix of a broken group, with checkpoints when the job has
 * them: an earlier run's finished fix for the same updates on the same base
 * is taken as it is (no second model run, no second bill), an unfinished
 * one is handed back to the agent to carry on, and the fix is saved as the
 * agent goes. Without a target it is the agent's run alone.
 */

export interface ForwardFix {
  kept: NetChange[];
  drift: string[];
  agent: Omit<AgentAttempt, "fixed">;
}

export async function fixForward(
  ctx: GroupContext,
  options: FixRequest & {
    target: FixCheckpointTarget | undefined;
    /** The base's tip: what the checkpoint grows from. */
    base: string;
  },
): Promise<ForwardFix> {
  const { target, base } = options;
  const key = updatesKey(options.updates);
  let saved: SavedFix | undefined;
  if (target) {
    saved = await loadFixCheckpoint(target, base, key).catch((error: unknown) => {
      ctx.events.step(`Could not read the fix's checkpoint, starting over: ${errorMessage(error)}`);
      return undefined;
    });
  }
  if (saved?.finished) {
    ctx.events.step("Taking the agent's fix from an earlier run of this job");
    const before = await readFiles(options.dir, saved.files.keys());
    const kept = [...saved.files].map(([path, after]) => ({
      path,
      before: before.get(path) ?? null,
      after,
    }));
    return {
      kept,
      drift: [],
      agent: {
        stopReason: saved.stopReason as AgentStopReason,
        summary: saved.summary,
        files: kept.map((c) => c.path),
        costUsd: saved.costUsd,
      },
    };
  }
  const earlierCost = saved?.costUsd ?? 0;
  const fix = await runAgentFix(ctx, {
    step: saved
      ? "Carrying on with the agent's fix from an earlier run of this job"
      : "Running the agent on the breakage",
    dir: options.dir,
    sandbox: options.sandbox,
    shellEnv: options.shellEnv,
    updates: options.updates,
    failure: options.failure,
    ...(saved ? { resume: { files: saved.files, summary: saved.summary } } : {}),
    ...(target
      ? {
          save: async (progress) => {
            await saveFixCheckpoint(target, base, {
              updates: key,
              finished: progress.finished,
              stopReason: progress.stopReason,
              costUsd: earlierCost + progress.costUsd,
              summary: progress.summary,
              files: new Map(progress.kept.map((c) => [c.path, c.after])),
            });
          },
        }
      : {}),
  });
  const { session, kept } = fix;
  return {
    kept,
    drift: fix.drift,
    agent: {
      stopReason: session.result.stopReason,
      ...(session.result.error ? { error: session.result.error } : {}),
      summary: session.result.finalText,
      files: kept.map((c) => c.path),
      costUsd: earlierCost + session.result.costUsd,
    },
  };
}
