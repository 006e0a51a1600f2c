import { readyJobTools } from "../../kernel/project-tools.js";
import { runCommand } from "../../kernel/run-command.js";
import { stop } from "../../kernel/steps.js";
import { fixForward } from "../fix/fix-forward.js";
import { safeguardsLoosened } from "../fix/safeguards.js";
import type { BumpFailure } from "../fix/task.js";
import { retargetedFix } from "../managers/locked-check.js";
import { swapPaths } from "../managers/yarn/release-file.js";
import type { Update } from "../update.js";
import { attemptUpdates, type TryUpdates, tryBranchAsIs } from "./attempt.js";
import { isolateCulprits } from "./bisect.js";
import { readFiles } from "./checkout.js";
import type { GroupContext } from "./context.js";
import type { DepsGroupResult, LeftOut } from "./group-result.js";
import { type GroupState, type GroupStep, siteOf, withResult } from "./group-state.js";

/**
 * The middle of a group's work (group-steps.ts): apply the bump, installed
 * and checked; split what passes as it is from what needs a fix; let the
 * agent fix forward and bisect what it could not fix; settle what ships.
 */

/** One try of `updates` in the group's workspace (attempt.ts), with the agent's files on top. */
function attempt(state: GroupState, ctx: GroupContext): TryUpdates {
  const { workspace, sandboxes } = siteOf(state);
  const group = state.result.group;
  return (updates, extra, options) =>
    attemptUpdates(
      {
        tools: ctx.tools,
        dir: workspace.dir,
        sandboxes,
        before: group.security ? ctx.tools.securityBefore : ctx.tools.before,
        gitEnv: ctx.gitEnv,
        clock: ctx.services.clock,
        signal: ctx.signal,
        events: ctx.events,
        passed: ctx.passed,
        locked: ctx.locked,
      },
      updates,
      extra,
      options,
    );
}

/**
 * The bump, installed and checked. A version the plan did not choose is no
 * breakage to fix: those updates are left out with the reason (or retold
 * at the version the lockfile step could take), and the rest is tried on its own.
 */
export const bump: GroupStep = {
  stage: "bump",
  async run(state, ctx) {
    const { workspace } = siteOf(state);
    const tryUpdates = attempt(state, ctx);
    const base = await readFiles(workspace.dir, [
      ...ctx.tools.manifests,
      ...(ctx.tools.lockfilePath ? [ctx.tools.lockfilePath] : []),
      ...swapPaths(state.result.group.updates),
    ]);
    let all: readonly Update[] = state.result.group.updates;
    let final = await tryUpdates(all);
    let treeMoved = false;
    // A failure the branch has without the updates (a red main, a Node the tools
    // refuse, a network that lets no install through) is no update's: a bisect
    // would blame each, and the agent (whose sandbox has no network) would be
    // asked to fix what they did not break. The branch as it is, tried once, says.
    if (final.failure && !final.mismatched) {
      const bare = await tryBranchAsIs(tryUpdates, final.failure);
      if (bare.failure) {
        return stop(
          withResult(state, {
            leftOut: [
              ...state.result.leftOut,
              ...all.map((update) => ({ update, failure: final.failure })),
            ],
            firstFailure: bare.failure,
          }),
          { stage: "bump", message: failsWithout(bare.failure) },
        );
      }
      treeMoved = true;
    }
    const leftOut = [...state.result.leftOut];
    let firstFailure = state.result.firstFailure;
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
      leftOut.push(...[...refused].map((update) => ({ update, failure })));
      if (failure && refused.size > 0) firstFailure = failure;
      all = all.filter((u) => !refused.has(u)).map((u) => replaced.get(u) ?? u);
      if (all.length > 0) final = await tryUpdates(all);
    }
    return {
      ...withResult(state, {
        leftOut,
        applied: [...all],
        ...(firstFailure ? { firstFailure } : {}),
      }),
      base,
      all,
      final,
      treeMoved,
    };
  },
};

/** What a failure the branch has without the updates is, for the group's error. */
function failsWithout(failure: BumpFailure): string {
  const { command, exit, networkTrouble } = failure.result;
  const network = failure.stage !== "verify" ? networkTrouble : undefined;
  const why = network ?? `exit ${exit}, as the branch is`;
  return `\`${command}\` fails without the updates too (${why}); nothing was bisected, and the agent was not asked`;
}

/**
 * Which updates pass as they are: those go out green in one pull request,
 * and the agent's fixes in another, so a reviewer can merge the safe part
 * without reading code changes. (Not after a refused version: the two parts
 * would not carry it to the report.)
 */
export const split: GroupStep = {
  stage: "bump",
  async run(state, ctx) {
    const { all, final, result } = state;
    const { group } = result;
    if (
      !final ||
      final.passed ||
      all.length <= 1 ||
      group.split ||
      group.security ||
      result.leftOut.length > 0
    )
      return state;
    const tryUpdates = attempt(state, ctx);
    const probe = await isolateCulprits({
      items: all,
      knownFailing: true,
      maxChecks: ctx.agent.maxBisectChecks,
      passes: async (subset) => {
        ctx.events.step(
          `Finding what passes as it is: ${subset.map((u) => u.name).join(", ") || "no updates"}`,
        );
        return (await tryUpdates(subset)).passed;
      },
    });
    if (probe.settled && probe.kept.length > 0 && probe.culprits.length > 0) {
      return stop(
        withResult(state, {
          status: "split",
          ...(final.failure ? { firstFailure: final.failure } : {}),
          split: { asIs: probe.kept, fixes: probe.culprits },
          applied: [],
        }),
      );
    }
    return { ...state, probe, treeMoved: true };
  },
};

/**
 * The group's updates back in the workspace, locked and installed, after
 * tries of other sets (the branch as it is, the probe's subsets), so the
 * agent works on the bumped tree. Their checks' failure is known; they are
 * not run again.
 */
async function putBackInPlace(state: GroupState, ctx: GroupContext, updates: readonly Update[]) {
  await attempt(state, { ...ctx, tools: { ...ctx.tools, verify: null } })(updates);
}

/**
 * The project's tool for the agent's own commands (`pnpm test` in its
 * shell): the worksite's tools folder, fetched into with setup's network.
 * The group's commands keep theirs in the workspace's tool cache, which
 * the agent does not see.
 */
function agentTools(state: GroupState, ctx: GroupContext) {
  const { workspace, sandboxes, tools } = siteOf(state);
  return readyJobTools(
    tools,
    (command, label) => {
      ctx.events.step(label);
      return runCommand({
        command,
        cwd: workspace.dir,
        env: tools?.env(ctx.tools.shellEnv) ?? ctx.tools.shellEnv,
        sandbox: sandboxes.setup,
        signal: ctx.signal,
        clock: ctx.services.clock,
        timeoutSeconds: ctx.tools.commandTimeoutSeconds,
        networkSetting: "setup_network",
      });
    },
    (message) => ctx.events.warning(message),
    ctx.tools.shellEnv,
  );
}

/**
 * The agent fixes forward what broke; verified again with its changes.
 * What still fails is bisected: the culprits are left out, the rest ships.
 */
export const fix: GroupStep = {
  stage: "bump",
  async run(state, ctx) {
    const { all, probe } = state;
    let final = state.final;
    if (!final || final.passed || !final.failure || all.length === 0) return state;
    const { workspace, sandboxes } = siteOf(state);
    const tryUpdates = attempt(state, ctx);
    const firstFailure = final.failure;
    if (state.treeMoved) await putBackInPlace(state, ctx, all);
    const tools = await agentTools(state, ctx);
    const forward = await fixForward(ctx, {
      dir: workspace.dir,
      sandbox: sandboxes.agent,
      ...(tools ? { shellEnv: tools.env } : {}),
      updates: all,
      failure: final.failure,
      target: state.fixTarget,
      base: workspace.baseSha,
    });
    const kept = forward.kept;
    const keptFiles = new Map(kept.map((c) => [c.path, c.after]));
    // Nothing changed: installing and checking again would only repeat the failure.
    if (kept.length > 0) {
      ctx.events.step("Verifying the agent's fix");
      final = await tryUpdates(all, keptFiles);
    }
    const loosened = safeguardsLoosened(kept);
    let result: DepsGroupResult = {
      ...state.result,
      firstFailure,
      agent: { ...forward.agent, fixed: final.passed },
      ...(forward.drift.length > 0 ? { drift: forward.drift } : {}),
      ...(loosened.length > 0 ? { agentLoosened: loosened } : {}),
    };
    if (!final.passed) {
      const stillFailing = final.failure;
      // Unchanged by the agent, the tree is the one the probe bisected: same answer.
      const bisect =
        kept.length === 0 && probe
          ? probe
          : all.length > 1
            ? await isolateCulprits({
                items: all,
                knownFailing: true,
                maxChecks: ctx.agent.maxBisectChecks,
                passes: async (subset) => {
                  ctx.events.step(
                    `Bisecting: trying ${subset.map((u) => u.name).join(", ") || "no updates"}`,
                  );
                  return (await tryUpdates(subset, keptFiles)).passed;
                },
              })
            : { kept: [], culprits: [...all], settled: true, passing: [] };
      // Out of checks, the largest set a check saw pass still ships; the
      // rest is left out as not checked in time, beside the culprits found.
      const applied = bisect.settled ? bisect.kept : bisect.passing;
      const leftOut: LeftOut[] = bisect.culprits.map((update) => ({
        update,
        failure: stillFailing,
      }));
      if (!bisect.settled)
        for (const update of all)
          if (!applied.includes(update) && !bisect.culprits.includes(update))
            leftOut.push({ update, failure: undefined });
      result = { ...result, leftOut, applied };
      if (result.applied.length > 0) final = await tryUpdates(result.applied, keptFiles);
    }
    return { ...state, result, final, kept, keptFiles };
  },
};

/** What passes ships: green, or partial with what was left out; nothing passing fails the group. */
export const settle: GroupStep = {
  stage: "bump",
  async run(state, ctx) {
    const final = state.final;
    const base = withResult(state, {
      ...(final?.verify ? { verify: final.verify } : {}),
      unverified: ctx.tools.verify === null,
    });
    const { applied, leftOut } = base.result;
    if (applied.length === 0 || !final?.passed) {
      return stop(
        withResult(base, {
          status: "failed",
          leftOut: [...leftOut, ...applied.map((update) => ({ update, failure: final?.failure }))],
          applied: [],
        }),
      );
    }
    return withResult(base, { status: leftOut.length > 0 ? "partial" : "green" });
  },
};
