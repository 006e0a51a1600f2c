import type { AgentEventListener } from "../../agent/events.js";
import type { NetChange } from "../../agent/file-history.js";
import type { AgentLimits } from "../../agent/loop.js";
import type { Model } from "../../agent/model/model.js";
import type { PolicyConfig } from "../../agent/policy/policy.js";
import { errorMessage } from "../../error-message.js";
import type { Identity } from "../../git/commits.js";
import type { PushResult } from "../../git/push.js";
import { prepareWorkspace } from "../../git/workspace.js";
import type { GitHubClient } from "../../github/octokit.js";
import { type KindWork, runJobSequence } from "../../kernel/sequence.js";
import { openJobRoom } from "../../kernel/worksite.js";
import type { NetworkPolicy } from "../../sandbox/network.js";
import type { SandboxLauncher } from "../../sandbox/sandbox.js";
import { secretsInEnv } from "../../secrets/patterns.js";
import { dropFixCheckpoint, type FixCheckpointTarget } from "../fix/fix-checkpoint.js";
import { fixForward } from "../fix/fix-forward.js";
import { retargetedFix } from "../managers/locked-check.js";
import type { WarmInstall } from "../managers/warm-install.js";
import { groupBranch, groupTitle, type UpdateGroup } from "../plan/groups.js";
import type { PlanWarning } from "../plan/plan.js";
import { openGroupPull, pushGroup } from "../publish/publish-group.js";
import type { UpstreamSource } from "../registry/upstream.js";
import type { Update } from "../update.js";
import { type AttemptContext, type AttemptOutcome, attemptUpdates } from "./attempt.js";
import { type BisectResult, isolateCulprits } from "./bisect.js";
import { otherAuthors, readFiles, restartFromBase } from "./checkout.js";
import { bumpCommitText, commitGroup } from "./group-commits.js";
import type { DepsGroupResult } from "./group-result.js";

/**
 * One group, one branch, one pull request, on the sequence every job kind
 * shares (job/sequence.ts). The group's work: apply the bump, install and
 * verify; when that fails let the agent fix forward (checkpointed, see
 * fix-checkpoint.ts) and verify again; when it still fails bisect the
 * group, leave the culprits out and ship the rest; commit and push. Then it
 * is published: the pull request is opened or updated. A group stopped by a
 * shutdown is not published; its fix waits on the checkpoint ref for the
 * job's next run.
 */

export interface GroupRunContext extends Omit<AttemptContext, "dir" | "sandboxes"> {
  sandbox: SandboxLauncher;
  /** The checks' and the agent's network, and the installs'. */
  network: NetworkPolicy;
  setupNetwork: NetworkPolicy;
  cloneUrl: string;
  token: string | undefined;
  owner: string;
  repo: string;
  baseBranch: string;
  defaultBranch: string;
  branchPrefix: string;
  /** The group's branch is already on the remote (an earlier run's). */
  branchExists: boolean;
  manifests: string[];
  cacheDir: string;
  envSource: Record<string, string | undefined>;
  model: () => Model;
  policy: PolicyConfig;
  limits: AgentLimits;
  identity: Identity;
  push: boolean;
  octokit: GitHubClient | undefined;
  onEvent: AgentEventListener | undefined;
  maxBisectChecks: number;
  /** Where the agent's upstream changes come from (tarballs, release notes); none: links only. */
  upstream: UpstreamSource | undefined;
  /** Carries the installed tree from group to group (one install per job). */
  warm: WarmInstall | undefined;
  /** deps.labels: on every bump pull request (security fixes get `security` too). */
  labels: readonly string[];
  /** The lockfile's cutoff for security fixes, which skip the cooldown (not the package manager's own age gate). */
  securityBefore: Date | undefined;
  /** The job can be cut short and run again (the App's): the agent's fix is saved under this ref per group. */
  checkpoints?: { ref(group: UpdateGroup): string } | undefined;
  /** The plan's checks that could not run: every pull request says so at the top. */
  planWarnings?: readonly PlanWarning[] | undefined;
}

/** The group's work, as the sequence sees it; the details are in the group's result. */
interface GroupWork extends KindWork {
  push?: PushResult | undefined;
}

export async function runDepsGroup(
  ctx: GroupRunContext,
  group: UpdateGroup,
): Promise<DepsGroupResult> {
  const started = ctx.clock.now();
  const branch = groupBranch(ctx.branchPrefix, group);
  const result: DepsGroupResult = {
    group,
    branch,
    status: "error",
    applied: [],
    leftOut: [],
    commits: [],
    durationMs: 0,
  };
  ctx.onStep(`Updating ${groupTitle(group)} on ${branch}`);
  try {
    const outcome = await runJobSequence<GroupWork, void>(
      {
        work: () => groupWork(ctx, result),
        publish: () => openGroupPull(ctx, result),
      },
      {
        signal: ctx.signal,
        checkpointed: ctx.checkpoints !== undefined,
        onWarning: (message) => ctx.onStep(message),
      },
    );
    if (outcome.interrupted) {
      result.status = "error";
      result.error = {
        stage: "interrupted",
        message: "stopped by a shutdown; the job's next run carries on from its checkpoint",
      };
    }
  } catch (error) {
    result.status = "error";
    result.error = {
      stage: result.commits.length > 0 ? "publish" : "bump",
      message: errorMessage(error),
    };
  }
  return { ...result, durationMs: ctx.clock.now() - started };
}

/** Everything up to the push; the result says what happened, the work what the sequence needs. */
async function groupWork(ctx: GroupRunContext, result: DepsGroupResult): Promise<GroupWork> {
  const { group, branch } = result;
  const work: GroupWork = {};
  const finish = () => work;
  const auth = ctx.token ? { token: ctx.token } : {};

  const opened = await openJobRoom({
    launcher: ctx.sandbox,
    env: ctx.gitEnv,
    networks: ctx,
    prepare: () =>
      prepareWorkspace({
        cloneUrl: ctx.cloneUrl,
        baseBranch: ctx.baseBranch,
        branch,
        createBranch: !ctx.branchExists,
        cacheDir: ctx.cacheDir,
        env: ctx.gitEnv,
        signal: ctx.signal,
        keepIdle: 1,
        ...auth,
      }),
  });
  if ("error" in opened) {
    result.error = opened.error;
    return finish();
  }
  const { workspace, sandboxes } = opened.room;
  const dir = workspace.dir;
  await ctx.warm?.restore(dir).catch(() => false);
  const fixTarget: FixCheckpointTarget | undefined = ctx.checkpoints && {
    dir,
    remoteUrl: workspace.remoteUrl,
    mirrorDir: workspace.mirrorDir,
    env: ctx.gitEnv,
    identity: ctx.identity,
    ...auth,
    ref: ctx.checkpoints.ref(group),
    secrets: secretsInEnv(ctx.envSource),
  };
  if (fixTarget) {
    // Run from the mirror: by then the workspace is parked.
    const { mirrorDir: _worktreeOf, ...target } = fixTarget;
    work.dropCheckpoint = () => dropFixCheckpoint({ ...target, dir: workspace.mirrorDir });
  }
  const attemptCtx: AttemptContext = {
    ...ctx,
    dir,
    sandboxes,
    before: group.security ? ctx.securityBefore : ctx.before,
  };
  const attempt = (updates: readonly Update[], extra?: ReadonlyMap<string, Buffer | null>) =>
    attemptUpdates(attemptCtx, updates, extra);

  try {
    if (ctx.branchExists) {
      const others = await otherAuthors({
        dir,
        baseSha: workspace.baseSha,
        identity: ctx.identity,
        env: ctx.gitEnv,
      });
      if (others.length > 0) {
        result.status = "skipped";
        result.applied = [];
        result.error = {
          stage: "branch",
          message: `${others.join(", ")} pushed to ${branch}; it is left alone until its pull request is merged or closed`,
        };
        return finish();
      }
      await restartFromBase({
        dir,
        baseSha: workspace.baseSha,
        baseBranch: ctx.baseBranch,
        identity: ctx.identity,
        env: ctx.gitEnv,
      });
    }
    const base = await readFiles(dir, [
      ...ctx.manifests,
      ...(ctx.lockfilePath ? [ctx.lockfilePath] : []),
    ]);
    let all: readonly Update[] = group.updates;
    let final: AttemptOutcome = await attempt(all);
    // A version the plan did not choose is no breakage to fix: those updates
    // are left out with the reason, and the rest is tried on its own.
    const retold = new Set<string>();
    while (final.mismatched && all.length > 0) {
      const refused = new Set<Update>();
      const replaced = new Map<Update, Update>();
      for (const mismatch of final.mismatched) {
        const fix = retold.has(mismatch.update.name) ? undefined : retargetedFix(mismatch);
        if (fix) {
          replaced.set(mismatch.update, fix);
          retold.add(fix.name);
        } else refused.add(mismatch.update);
      }
      const failure = final.failure;
      result.leftOut.push(...[...refused].map((update) => ({ update, failure })));
      if (failure && refused.size > 0) result.firstFailure = failure;
      all = all.filter((u) => !refused.has(u)).map((u) => replaced.get(u) ?? u);
      if (all.length > 0) final = await attempt(all);
    }
    let kept: NetChange[] = [];
    let keptFiles: Map<string, Buffer | null> | undefined;
    result.applied = [...all];

    // Which updates pass as they are: those go out green in one pull
    // request, and the agent's fixes in another, so a reviewer can merge
    // the safe part without reading code changes.
    // (Not after a refused version: the two parts would not carry it to the report.)
    let probe: BisectResult<Update> | undefined;
    if (
      !final.passed &&
      all.length > 1 &&
      !group.split &&
      !group.security &&
      result.leftOut.length === 0
    ) {
      probe = await isolateCulprits({
        items: all,
        knownFailing: true,
        maxChecks: ctx.maxBisectChecks,
        passes: async (subset) => {
          ctx.onStep(
            `Finding what passes as it is: ${subset.map((u) => u.name).join(", ") || "no updates"}`,
          );
          return (await attempt(subset)).passed;
        },
      });
      if (probe.settled && probe.kept.length > 0 && probe.culprits.length > 0) {
        result.status = "split";
        if (final.failure) result.firstFailure = final.failure;
        result.split = { asIs: probe.kept, fixes: probe.culprits };
        result.applied = [];
        return finish();
      }
    }

    if (!final.passed && final.failure && all.length > 0) {
      result.firstFailure = final.failure;
      const fix = await fixForward(ctx, {
        dir,
        sandbox: sandboxes.agent,
        updates: all,
        failure: final.failure,
        target: fixTarget,
        base: workspace.baseSha,
      });
      kept = fix.kept;
      if (fix.drift.length > 0) result.drift = fix.drift;
      keptFiles = new Map(kept.map((c) => [c.path, c.after]));
      // Nothing changed: installing and checking again would only repeat the failure.
      if (kept.length > 0) {
        ctx.onStep("Verifying the agent's fix");
        final = await attempt(all, keptFiles);
      }
      result.agent = { ...fix.agent, fixed: final.passed };
      if (!final.passed) {
        const stillFailing = final.failure;
        const agentFiles = keptFiles;
        // Unchanged by the agent, the tree is the one the probe bisected: same answer.
        const bisect =
          kept.length === 0 && probe
            ? probe
            : all.length > 1
              ? await isolateCulprits({
                  items: all,
                  knownFailing: true,
                  maxChecks: ctx.maxBisectChecks,
                  passes: async (subset) => {
                    ctx.onStep(
                      `Bisecting: trying ${subset.map((u) => u.name).join(", ") || "no updates"}`,
                    );
                    return (await attempt(subset, agentFiles)).passed;
                  },
                })
              : { kept: [], culprits: [...all], settled: true };
        result.leftOut = bisect.culprits.map((update) => ({ update, failure: stillFailing }));
        if (!bisect.settled)
          result.leftOut.push(...bisect.kept.map((update) => ({ update, failure: undefined })));
        result.applied = bisect.kept;
        if (result.applied.length > 0) final = await attempt(result.applied, keptFiles);
      }
    }
    if (final.verify) result.verify = final.verify;
    result.unverified = ctx.verify === null;
    if (result.applied.length === 0 || !final.passed) {
      result.status = "failed";
      if (result.applied.length > 0)
        result.leftOut.push(
          ...result.applied.map((update) => ({ update, failure: final.failure })),
        );
      result.applied = [];
      return finish();
    }
    result.status = result.leftOut.length > 0 ? "partial" : "green";

    ctx.onStep("Committing");
    result.commits = await commitGroup({
      dir,
      updates: result.applied,
      base,
      lockfilePath: ctx.lockfilePath,
      agentChanges: kept,
      agentSummary: result.agent?.summary ?? "",
      bumpText: bumpCommitText(result.applied, group.name, group.single),
      identity: ctx.identity,
      env: ctx.gitEnv,
    });
    if (!ctx.push) return finish();

    if (await pushGroup(ctx, workspace, result)) work.push = result.push;
    return finish();
  } catch (error) {
    result.status = "error";
    result.error = {
      stage: result.commits.length > 0 ? "publish" : "bump",
      message: errorMessage(error),
    };
    return finish();
  } finally {
    // The sandboxes stop first: nothing may still write the tree being shelved.
    await opened.room.sandboxes.close();
    await ctx.warm?.save(dir).catch(() => undefined);
    await opened.room.close();
  }
}
