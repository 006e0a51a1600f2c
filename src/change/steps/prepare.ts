import { setTimeout as delay } from "node:timers/promises";
import type { EarlyTurn } from "../../agent/model/early-turn.js";
import { branchName } from "../../git/branch.js";
import { remoteDefaultBranch } from "../../git/remote-head.js";
import type { PlannedWorkspace, Workspace } from "../../git/workspace/workspace.js";
import { prepareJobWorkspace } from "../../kernel/repository.js";
import { stop } from "../../kernel/steps.js";
import { openWorksite } from "../../kernel/worksite.js";
import { type ChangeContext, type ChangeStep, withResult } from "../context.js";
import { mayStartEarly, startEarlyTurn } from "../early-turn.js";

/**
 * How long after the first turn's handoff its checkout starts. Measured on
 * the 2-core VM (the Action's bench, issue_comment, A/B of 11 runs): the
 * first model request came 627 ms after the start when the checkout did not
 * wait for the turn, 587 ms with 10 ms, 557 ms with 30 ms.
 */
const HEAD_START_MS = 30;

/**
 * Opens the change's worksite: the base resolved (the remote's default
 * branch unless given), the worktree on the job's branch (a new one named
 * from the mirror's refs after the fetch: no extra round trip), and its
 * sandboxes. Where checkpoints go is set here too: the job's remote, with
 * its token, never cut short by the job's own signal.
 */
export const prepare: ChangeStep = {
  stage: "workspace",
  async run(state, ctx, defer) {
    ctx.events.step("Preparing the workspace");
    const { input } = ctx;
    // The model's first request is next but for git: its libraries load while git works.
    input.model.warmUp?.();
    let baseBranch = state.result.baseBranch;
    // The agent's first turn goes out while git checks the worktree out (early-turn.ts).
    let earlyTurn: Promise<EarlyTurn | undefined> | undefined;
    const onPlanned = mayStartEarly(ctx, state)
      ? (planned: PlannedWorkspace) => {
          earlyTurn = startEarlyTurn(ctx, state, planned);
          // The checkout starts once the turn is handed to the model's client,
          // and a beat later (HEAD_START_MS): git's start is a fork of this
          // thread, and its checkout takes a core, both on the way of the
          // request still leaving. Its answer takes far longer than that.
          return earlyTurn.then(() => delay(HEAD_START_MS));
        }
      : undefined;
    // Whatever happens next, an early turn nobody took is aborted.
    defer(async () => (await earlyTurn)?.discard());
    const opened = await openWorksite({
      launcher: ctx.services.sandbox,
      env: ctx.gitEnv,
      networks: input,
      tools: ctx.services.projectTools && {
        source: ctx.services.projectTools,
        env: ctx.shellEnv,
      },
      onWarning: (message) => ctx.events.warning(message),
      prepare: async () => {
        baseBranch ||= await remoteDefaultBranch({
          url: input.cloneUrl,
          env: ctx.gitEnv,
          ...ctx.remote,
        });
        return prepareJobWorkspace(
          ctx.services,
          { ...input, onPlanned },
          baseBranch,
          state.result.branch ||
            ((isTaken) =>
              branchName({
                prefix: input.branchPrefix,
                title: input.branchTitle,
                ...(input.issueNumber !== undefined ? { issueNumber: input.issueNumber } : {}),
                existing: isTaken,
              })),
        );
      },
    });
    if ("error" in opened) return stop(withResult(state, { baseBranch }), opened.error);
    const site = opened.worksite;
    defer(() => site.close());
    return {
      ...withResult(state, { baseBranch, branch: site.workspace.branch }),
      site,
      checkpoints: checkpointTarget(ctx, site.workspace),
      earlyTurn,
    };
  },
};

function checkpointTarget(ctx: ChangeContext, workspace: Workspace) {
  const ref = ctx.input.checkpointRef;
  if (!ref || !ctx.input.push) return undefined;
  return {
    dir: workspace.dir,
    remoteUrl: workspace.remoteUrl,
    mirrorDir: workspace.mirrorDir,
    env: ctx.gitEnv,
    identity: ctx.input.identity,
    ...ctx.remote,
    ref,
  };
}
