import { type ChangeState, type ChangeStep, siteOf } from "../../change/context.js";
import { agent } from "../../change/steps/agent.js";
import { commit } from "../../change/steps/commit.js";
import { prepare } from "../../change/steps/prepare.js";
import { push } from "../../change/steps/push.js";
import { resume } from "../../change/steps/resume.js";
import { setup } from "../../change/steps/setup.js";
import { verify } from "../../change/steps/verify.js";
import { errorMessage } from "../../error-message.js";
import { runGit } from "../../git/git-client.js";
import { authoredBy, sameLogin } from "../../github/logins.js";
import { isStop, stop } from "../../kernel/steps.js";
import { safeguardsLoosened } from "../fix/safeguards.js";
import { registryInstallScripts } from "../plan/install-scripts.js";
import { agentLoosenedWarning, lockedScriptWarnings } from "../publish/pr-body.js";
import { readNpmConfig } from "../registry/npmrc.js";
import { createRegistryClient, type RegistryClient } from "../registry/registry.js";
import { releaseLinks } from "../registry/release-notes.js";
import { type UpstreamSource, upstreamOf } from "../registry/upstream.js";
import type { Update } from "../update.js";
import { type PrBump, readPrBump } from "./bump-diff.js";
import { putBack } from "./put-back.js";
import { cannotFixNames, describeBump, movedNames } from "./task.js";

/**
 * The change for another bot's dependency pull request: the agent's steps
 * on the pull request's branch, with two of its own. Before the agent, the
 * branch is read (whose commits are on it, which packages moved, what
 * changed upstream between their versions); after the agent's commit, a
 * package it said it cannot make work is put back to its old version in a
 * commit of its own, when the pull request updates others too.
 */

export interface DependencyPrOptions {
  /** The bot that opened the pull request ("dependabot[bot]"). */
  bot: string;
  /** Release notes by repository (GitHub's releases); none: the tarballs' changelogs and API diffs. */
  releases?: UpstreamSource["releases"] | undefined;
}

export function dependencyPrSteps(options: DependencyPrOptions): ChangeStep[] {
  // Read once before the agent, used again after it: this run's own.
  let bump: PrBump | undefined;
  const read: ChangeStep = {
    stage: "workspace",
    async run(state, ctx) {
      const { workspace } = siteOf(state);
      ctx.events.step(`Reading what ${options.bot}'s pull request updates`);
      const mergeBase = (
        await runGit(workspace.dir, ["merge-base", workspace.baseSha, "HEAD"], { env: ctx.gitEnv })
      ).trim();
      const stranger = await strangerCommit(workspace.dir, ctx.gitEnv, mergeBase, [
        options.bot,
        ctx.input.identity,
      ]);
      if (stranger) {
        return stop(state, {
          stage: "workspace",
          message: `${stranger.name} pushed ${stranger.sha.slice(0, 7)} to this branch after ${options.bot} opened it; the branch holds a person's work now, so I leave it to them.`,
        });
      }
      // The registry the project's .npmrc names: release notes, and pnpm's install scripts.
      const registry = createRegistryClient({
        npm: await readNpmConfig({ dir: workspace.dir, env: ctx.services.envSource }),
      });
      try {
        bump = await readPrBump({
          dir: workspace.dir,
          env: ctx.gitEnv,
          mergeBase,
          installScripts: registryInstallScripts(registry),
        });
      } catch (error) {
        ctx.events.warning(
          `could not read the packages this pull request updates (${errorMessage(error)}); the agent has the CI logs only`,
        );
        return state;
      }
      ctx.events.step("Reading what changed upstream");
      const upstream = await upstreamFor(registry, bump.updates, options.releases, ctx.signal);
      const notices = lockedScriptWarnings(bump.unreviewedScripts, bump.updates);
      return {
        ...withNotices(state, notices),
        taskNotes: [...(state.taskNotes ?? []), describeBump(options.bot, bump), upstream].filter(
          Boolean,
        ),
      };
    },
  };

  const commitThenPutBack: ChangeStep = {
    stage: "agent",
    async run(agentState, ctx, defer) {
      // A safeguard the agent loosened (a script approved, a gate lowered), against its rules, is said in the thread.
      const loosened = safeguardsLoosened(agentState.result.changes ?? []);
      const state =
        loosened.length > 0
          ? withNotices(agentState, [agentLoosenedWarning(loosened)])
          : agentState;
      const committed = await commit.run(state, ctx, defer);
      const after = isStop(committed) ? committed.state : committed;
      if (isStop(committed) && committed.error) return committed;
      const moved = bump ? movedNames(bump) : [];
      const names = cannotFixNames(state.result.agent?.finalText ?? "", moved);
      // A package alone in its pull request is not put back: that would undo the pull request.
      if (!bump || names.length === 0 || names.length >= moved.length) return committed;
      const reverted = await putBack(after, ctx, bump, names);
      if (reverted === after && isStop(committed)) return committed;
      return reverted;
    },
  };

  return [prepare, resume, read, setup, agent, commitThenPutBack, verify, push];
}

/** The first commit since the base by anyone but the allowed bot and patchwright itself. */
async function strangerCommit(
  dir: string,
  env: Record<string, string | undefined>,
  mergeBase: string,
  allowed: [string, { name: string; email: string }],
): Promise<{ sha: string; name: string } | undefined> {
  const [bot, self] = allowed;
  const log = await runGit(dir, ["log", "--format=%H%x09%an%x09%ae", `${mergeBase}..HEAD`], {
    env,
  });
  for (const line of log.split("\n")) {
    if (!line) continue;
    const [sha = "", name = "", email = ""] = line.split("\t");
    const author = { name, email };
    const isBot = authoredBy(author, bot) || sameLogin(name, bot);
    const isSelf = email.toLowerCase() === self.email.toLowerCase();
    if (!isBot && !isSelf) return { sha, name };
  }
  return undefined;
}

/** What changed upstream for the updates. */
async function upstreamFor(
  registry: RegistryClient,
  updates: readonly Update[],
  releases: UpstreamSource["releases"],
  signal: AbortSignal,
): Promise<string> {
  if (updates.length === 0) return "";
  // The packument names the repository whose release notes are read.
  const linked = await Promise.all(
    updates.map(async (update) => {
      const packument = await registry
        .packument(update.package ?? update.name, signal)
        .catch(() => undefined);
      return packument ? { ...update, links: releaseLinks(packument, update.to) } : update;
    }),
  );
  return upstreamOf(
    { tarball: (name, version, abort) => registry.tarball(name, version, abort), releases },
    linked,
    signal,
  );
}

/** `state` with `notices` for the thread's final report ("To review"). */
function withNotices(state: ChangeState, notices: readonly string[]): ChangeState {
  if (notices.length === 0) return state;
  return {
    ...state,
    result: { ...state.result, notices: [...(state.result.notices ?? []), ...notices] },
  };
}
