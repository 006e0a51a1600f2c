import { prepareWorkspace } from "../../git/workspace/workspace.js";
import { spareOption } from "../../kernel/repository.js";
import { stop } from "../../kernel/steps.js";
import { openWorksite } from "../../kernel/worksite.js";
import { dropFixCheckpoint, type FixCheckpointTarget } from "../fix/fix-checkpoint.js";
import { lockedScriptsToReview } from "../plan/install-scripts.js";
import { pushGroup } from "../publish/publish-group.js";
import { bump, fix, settle, split } from "./bump-steps.js";
import { otherAuthors, restartFromBase } from "./checkout.js";
import { bumpCommitText, commitGroup } from "./group-commits.js";
import { type GroupStep, siteOf, withResult } from "./group-state.js";

/**
 * A dependency group's work, as steps on the one runner (kernel/steps.ts):
 * open the worksite, leave a branch others pushed to alone, apply the bump
 * (installed and checked), split what passes as it is from what needs a
 * fix, let the agent fix forward (checkpointed) and bisect what it could
 * not fix, settle (those four in bump-steps.ts), commit, push. Publishing
 * follows on the job sequence (run-deps-group.ts).
 */

const prepare: GroupStep = {
  stage: "workspace",
  async run(state, ctx, defer) {
    const { target } = ctx;
    const auth = target.token ? { token: target.token } : {};
    const opened = await openWorksite({
      launcher: ctx.services.sandbox,
      env: ctx.gitEnv,
      networks: ctx.tools,
      // For the agent's shell: the group's own commands start the tool their way (GroupTools).
      tools: ctx.tools.agentTools && {
        source: async (dir) => ctx.tools.agentTools?.(dir),
        env: ctx.tools.shellEnv,
      },
      onWarning: (message) => ctx.events.warning(message),
      prepare: () =>
        prepareWorkspace({
          cloneUrl: target.cloneUrl,
          baseBranch: target.baseBranch,
          branch: state.result.branch,
          createBranch: !ctx.branchExists,
          cacheDir: ctx.services.cacheDir,
          env: ctx.gitEnv,
          signal: ctx.signal,
          keepIdle: 1,
          ...spareOption(ctx.services),
          ...auth,
        }),
    });
    if ("error" in opened) return stop(state, opened.error);
    const site = opened.worksite;
    const { workspace } = site;
    defer(() => site.close());
    // The sandboxes stop first: nothing may still write the tree being shelved.
    defer(async () => {
      await site.sandboxes.close();
      await ctx.warm?.save(workspace.dir).catch(() => undefined);
    });
    await ctx.warm?.restore(workspace.dir).catch(() => false);
    const ref = ctx.checkpointRef?.(state.result.group);
    const fixTarget: FixCheckpointTarget | undefined = ref
      ? {
          dir: workspace.dir,
          remoteUrl: workspace.remoteUrl,
          mirrorDir: workspace.mirrorDir,
          env: ctx.gitEnv,
          identity: target.identity,
          ...auth,
          ref,
          secrets: ctx.services.secrets,
        }
      : undefined;
    // Run from the mirror: by then the workspace is parked.
    const drop = fixTarget && { ...fixTarget, mirrorDir: undefined, dir: workspace.mirrorDir };
    return {
      ...state,
      site,
      fixTarget,
      ...(drop ? { dropCheckpoint: () => dropFixCheckpoint(drop) } : {}),
    };
  },
};

/** A branch someone else pushed to is theirs until its pull request is merged or closed. */
const ownBranch: GroupStep = {
  stage: "bump",
  async run(state, ctx) {
    if (!ctx.branchExists) return state;
    const { workspace } = siteOf(state);
    const env = ctx.gitEnv;
    const { identity } = ctx.target;
    const others = await otherAuthors({
      dir: workspace.dir,
      baseSha: workspace.baseSha,
      identity,
      env,
    });
    if (others.length > 0) {
      return stop(
        withResult(state, {
          status: "skipped",
          applied: [],
          error: {
            stage: "branch",
            message: `${others.join(", ")} pushed to ${state.result.branch}; it is left alone until its pull request is merged or closed`,
          },
        }),
      );
    }
    await restartFromBase({
      dir: workspace.dir,
      baseSha: workspace.baseSha,
      baseBranch: ctx.target.baseBranch,
      identity,
      env,
    });
    return state;
  },
};

const commit: GroupStep = {
  stage: "bump",
  async run(state, ctx) {
    const { workspace } = siteOf(state);
    const { result } = state;
    ctx.events.step("Committing");
    const commits = await commitGroup({
      dir: workspace.dir,
      updates: result.applied,
      base: state.base ?? new Map(),
      lockfilePath: ctx.tools.lockfilePath,
      agentChanges: state.kept,
      agentSummary: result.agent?.summary ?? "",
      bumpText: bumpCommitText(result.applied, result.group.name, result.group.single),
      identity: ctx.target.identity,
      env: ctx.gitEnv,
    });
    const unreviewedScripts = await lockedScriptsToReview({
      dir: workspace.dir,
      lockfilePath: ctx.tools.lockfilePath,
      before: ctx.tools.lockfilePath ? state.base?.get(ctx.tools.lockfilePath) : undefined,
      installScripts: ctx.tools.installScripts,
    });
    const next = withResult(state, {
      commits,
      ...(unreviewedScripts.length > 0 ? { unreviewedScripts } : {}),
    });
    return ctx.target.push ? next : stop(next);
  },
};

const push: GroupStep = {
  stage: "publish",
  async run(state, ctx) {
    const pushed = await pushGroup(ctx, siteOf(state).workspace, state.result);
    return withResult(state, pushed);
  },
};

export const GROUP_STEPS: readonly GroupStep[] = [
  prepare,
  ownBranch,
  bump,
  split,
  fix,
  settle,
  commit,
  push,
];
