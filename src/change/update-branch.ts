import type { CreatedCommit } from "../git/commit/commits.js";
import { type GitEnv, runGit } from "../git/git-client.js";
import { stop } from "../kernel/steps.js";
import type { ChangeInput, Integration, UpdateStrategy } from "./change.js";
import { type ChangeStep, siteOf, withResult } from "./context.js";
import { type Git, integrateBase, succeeds } from "./integrate-base.js";
import { prepare } from "./steps/prepare.js";
import { pushStep } from "./steps/push.js";
import { verify } from "./steps/verify.js";

/**
 * Bringing a pull request's branch up to date with its base, as a list of
 * steps on the change runner: the base merged in or rebased onto,
 * conflicts resolved by the agent (integrate-base.ts), then verify, and
 * push: a merge is a fast-forward of the branch, a rebase is forced with a
 * lease on the tip the job started from, and only ever to the job's own
 * branch. A conflict left unresolved pushes nothing.
 */
export function updateBranchSteps(strategy: UpdateStrategy): readonly ChangeStep[] {
  return [needsBranches, prepare, integrate(strategy), verify, pushUpdate(strategy)];
}

const needsBranches: ChangeStep = {
  stage: "workspace",
  async run(state, ctx) {
    const baseBranch = ctx.input.baseBranch ?? ctx.input.defaultBranch ?? "";
    const next = withResult(state, { baseBranch });
    if (state.result.branch && baseBranch) return next;
    return stop(next, {
      stage: "workspace",
      message: "updating a branch needs the branch and its base",
    });
  },
};

function integrate(strategy: UpdateStrategy): ChangeStep {
  return {
    stage: "agent",
    async run(state, ctx) {
      const { workspace, sandboxes } = siteOf(state);
      // Commit messages are never edited: git's own for a rebase, ours for a merge.
      const git: Git = (args, env = ctx.gitEnv) =>
        runGit(workspace.dir, args, { env, config: [["core.editor", "true"]] });
      const update: Integration = { strategy, baseSha: workspace.baseSha, conflicted: [] };
      const upToDate = await succeeds(() =>
        git(["merge-base", "--is-ancestor", workspace.baseSha, workspace.startSha]),
      );
      if (upToDate) return stop(withResult(state, { update: { ...update, upToDate: true } }));
      // integrateBase records the agent's run and the conflicts on these copies.
      const result = { ...state.result, update, commands: [...state.result.commands] };
      const integrated = await integrateBase({
        change: ctx,
        strategy,
        dir: workspace.dir,
        sandboxes,
        git,
        commitEnv: identityEnv(ctx.gitEnv, ctx.input.identity),
        base: workspace.baseSha,
        start: workspace.startSha,
        baseBranch: state.result.baseBranch,
        branch: state.result.branch,
        result,
        update,
      });
      if (!integrated) return stop({ ...state, result });
      const head = (await git(["rev-parse", "HEAD"])).trim();
      const commits = await commitsBetween(git, workspace.baseSha, head, strategy);
      return { ...state, result: { ...result, commits } };
    },
  };
}

/** A rebase rewrote the branch: forced, but only over the tip this job started from. */
function pushUpdate(strategy: UpdateStrategy): ChangeStep {
  return pushStep((workspace) => {
    const lease = strategy === "rebase" ? workspace.startSha : undefined;
    return {
      prHead: workspace.branch,
      // A rebase's commits start on the base; a merge's on the branch's old tip.
      onto: lease ? workspace.baseSha : workspace.startSha,
      exists: true,
      ...(lease ? { forceWithLease: lease } : {}),
      // What the base brought in is not the job's change: only the resolution is checked.
      workflowsAlsoFrom: [lease ? workspace.startSha : workspace.baseSha],
    };
  });
}

function identityEnv(env: GitEnv, identity: ChangeInput["identity"]): GitEnv {
  return {
    ...env,
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
}

async function commitsBetween(
  git: Git,
  base: string,
  to: string,
  strategy: UpdateStrategy,
): Promise<CreatedCommit[]> {
  // A merge: the merge commit itself; a rebase: every replayed commit.
  const range = strategy === "merge" ? ["-1", to] : [`${base}..${to}`];
  const out = await git(["log", "--format=%H%x00%s", ...range]).catch(() => "");
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [sha = "", subject = ""] = line.split("\0");
      return { sha, subject, files: [], turns: [] };
    });
}
