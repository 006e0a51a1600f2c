import { errorMessage } from "../../error-message.js";
import type { PushResult } from "../../git/push/push.js";
import { keepingWarnings } from "../../kernel/events.js";
import { type KindWork, runJobSequence } from "../../kernel/sequence.js";
import { runSteps } from "../../kernel/steps.js";
import { groupBranch, groupTitle, type UpdateGroup } from "../plan/groups.js";
import { openGroupPull } from "../publish/publish-group.js";
import type { GroupContext } from "./context.js";
import type { DepsGroupResult } from "./group-result.js";
import { GROUP_STEPS } from "./group-steps.js";

/**
 * One group, one branch, one pull request, on the sequence every job kind
 * shares (kernel/sequence.ts). The group's work is its steps
 * (group-steps.ts): apply the bump, install and verify; when that fails let
 * the agent fix forward (checkpointed, see fix-checkpoint.ts) and verify
 * again; when it still fails bisect the group, leave the culprits out and
 * ship the rest; commit and push. Then it is published: the pull request is
 * opened or updated. A group stopped by a shutdown is not published; its
 * fix waits on the checkpoint ref for the job's next run.
 */

/** The group's work, as the sequence sees it; the details are in the group's result. */
interface GroupWork extends KindWork {
  push?: PushResult | undefined;
}

export async function runDepsGroup(
  ctx: GroupContext,
  group: UpdateGroup,
): Promise<DepsGroupResult> {
  const started = ctx.services.clock.now();
  const branch = groupBranch(ctx.target.branchPrefix, group);
  let result: DepsGroupResult = {
    group,
    branch,
    status: "error",
    applied: [],
    leftOut: [],
    commits: [],
    durationMs: 0,
  };
  // Said to the job's listeners as they happen; kept for the summary and the pull request.
  const kept = keepingWarnings(ctx.events);
  const groupCtx = { ...ctx, events: kept.events };
  ctx.events.step(`Updating ${groupTitle(group)} on ${branch}`);
  try {
    const outcome = await runJobSequence<GroupWork, void>(
      {
        work: async () => {
          const { state, error } = await runSteps(
            GROUP_STEPS,
            { result, all: [], kept: [] },
            groupCtx,
          );
          result = error ? { ...state.result, status: "error", error } : state.result;
          result = withWarnings(result, kept.warnings.splice(0));
          // The group's errors are in its result, for its report: the sequence only publishes.
          return { push: result.push, dropCheckpoint: state.dropCheckpoint };
        },
        publish: async () => {
          result = await openGroupPull(ctx, result);
        },
      },
      {
        signal: ctx.signal,
        checkpointed: ctx.checkpointRef !== undefined,
        onWarning: (message) => groupCtx.events.warning(message),
      },
    );
    if (outcome.interrupted) {
      result = {
        ...result,
        status: "error",
        error: {
          stage: "interrupted",
          message: "stopped by a shutdown; the job's next run carries on from its checkpoint",
        },
      };
    }
  } catch (error) {
    result = {
      ...result,
      status: "error",
      error: {
        stage: result.commits.length > 0 ? "publish" : "bump",
        message: errorMessage(error),
      },
    };
  }
  // Those of steps that threw before the work could keep them.
  result = withWarnings(result, kept.warnings);
  return { ...result, durationMs: ctx.services.clock.now() - started };
}

function withWarnings(result: DepsGroupResult, warnings: readonly string[]): DepsGroupResult {
  if (warnings.length === 0) return result;
  return { ...result, warnings: [...(result.warnings ?? []), ...warnings] };
}
