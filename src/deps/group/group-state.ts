import type { NetChange } from "../../agent/file-history.js";
import type { Step } from "../../kernel/steps.js";
import type { Worksite } from "../../kernel/worksite.js";
import type { FixCheckpointTarget } from "../fix/fix-checkpoint.js";
import type { Update } from "../update.js";
import type { AttemptOutcome } from "./attempt.js";
import type { BisectResult } from "./bisect.js";
import type { GroupContext } from "./context.js";
import type { DepsGroupResult } from "./group-result.js";

/** What a dependency group's steps (group-steps.ts, bump-steps.ts) pass along. */

export interface GroupState {
  result: DepsGroupResult;
  site?: Worksite | undefined;
  /** Where the agent's fix is saved as it goes (checkpoints on). */
  fixTarget?: FixCheckpointTarget | undefined;
  dropCheckpoint?: (() => Promise<void>) | undefined;
  /** The manifests and the lockfile as the base has them. */
  base?: Map<string, Buffer | null> | undefined;
  /** The updates still in the group. */
  all: readonly Update[];
  /** The last try's outcome. */
  final?: AttemptOutcome | undefined;
  /** What passes as it is, found before the agent ran. */
  probe?: BisectResult<Update> | undefined;
  /**
   * Another set than `all` was tried last (the branch as it is, the probe's
   * subsets): the tree is put back before the agent works on it.
   */
  treeMoved?: boolean | undefined;
  /** The agent's kept changes. */
  kept: NetChange[];
  keptFiles?: Map<string, Buffer | null> | undefined;
}

export type GroupStage = "workspace" | "sandbox" | "branch" | "bump" | "publish";
export type GroupStep = Step<GroupState, GroupContext, GroupStage>;

export function siteOf(state: GroupState): Worksite {
  if (!state.site) throw new Error("the workspace is not open");
  return state.site;
}

export function withResult(state: GroupState, patch: Partial<DepsGroupResult>): GroupState {
  return { ...state, result: { ...state.result, ...patch } };
}
