import { createRedactor } from "../../agent/redact.js";
import { workspacePatch } from "../../git/tree/patch.js";
import { stop } from "../../kernel/steps.js";
import type { CheckpointChain } from "../checkpoints.js";
import { commitWork } from "../commit-work.js";
import { type ChangeStep, siteOf } from "../context.js";

/**
 * The agent's work becomes commits: its checkpoints when they are all
 * there, else one per turn (or squashed), checked against the workspace it
 * left. Nothing new (no turn changed a file, the tree is the same, nothing
 * resumed, no commit in the shell) ends the change here, with nothing to push.
 */
export const commit: ChangeStep = {
  stage: "agent",
  async run(state, ctx) {
    const run = state.agentRun;
    if (!run) return state;
    const { workspace } = siteOf(state);
    const { input, services } = ctx;
    const nothingNew =
      run.session.history.turns().length === 0 && run.trees.start === run.trees.end;
    if (nothingNew && !state.result.resumed && run.after === run.head) return stop(state);
    ctx.events.step("Committing");
    const work = await commitWork({
      dir: workspace.dir,
      env: ctx.gitEnv,
      session: run.session,
      trees: run.trees,
      head: run.after,
      // The agent may have committed in its shell (where git may write): its
      // commits are built on, and the checkpoints, made on the old HEAD, are not used.
      checkpoints: usableChain(run.chain, run.head, run.after),
      redact: createRedactor(services.secrets.map((secret) => secret.value)),
      identity: input.identity,
      squash: input.squash,
      coAuthor: input.coAuthor,
      requestUrl: input.requestUrl,
    });
    return {
      ...state,
      result: {
        ...state.result,
        commits: [...state.result.commits, ...work.commits],
        ...(work.drift ? { drift: work.drift } : {}),
        ...(input.wantPatch
          ? { patch: await workspacePatch(workspace.dir, workspace.startSha, ctx.gitEnv) }
          : {}),
      },
    };
  },
};

/** The checkpoints become the branch only when they are all there and HEAD is where they start. */
function usableChain(
  chain: CheckpointChain | undefined,
  head: string,
  after: string,
): CheckpointChain | undefined {
  return chain?.complete && after === head && chain.commits.length > 0 ? chain : undefined;
}
