import { openOrUpdatePullRequest } from "../../github/pulls.js";
import { type PushWorkOptions, pushWork } from "../../kernel/push-work.js";
import { secretsInEnv } from "../../secrets/patterns.js";
import type { DepsGroupResult } from "../group/group-result.js";
import type { GroupRunContext } from "../group/run-deps-group.js";
import { groupTitle } from "../plan/groups.js";
import { renderDepsPullRequestBody } from "./pr-body.js";
import { labelPullRequest, labelsFor } from "./pull-labels.js";

/**
 * Pushes a committed group's branch; fills in the group's report (`push`,
 * or the error and where the commits went instead). False: not pushed.
 */
export async function pushGroup(
  ctx: GroupRunContext,
  workspace: PushWorkOptions["workspace"],
  result: DepsGroupResult,
): Promise<boolean> {
  const { branch } = result;
  ctx.onStep(`Pushing ${branch}`);
  const pushed = await pushWork({
    workspace,
    branchPrefix: `${ctx.branchPrefix}deps/`,
    defaultBranch: ctx.defaultBranch,
    env: ctx.gitEnv,
    secrets: secretsInEnv(ctx.envSource),
    token: ctx.token,
  });
  if (!pushed.push) {
    // Not on the group's branch: where the work went instead, for the report.
    const where = pushed.fallbackBranch
      ? `; the commits are on \`${pushed.fallbackBranch}\``
      : pushed.patch
        ? "; no branch took the commits"
        : "";
    result.status = "error";
    result.error = {
      stage: "publish",
      message: `${pushed.error?.message ?? "push failed"}${where}`,
    };
    return false;
  }
  result.push = pushed.push;
  return true;
}

/**
 * Opens or updates a pushed group's pull request, labelled; fills in
 * `pullRequest` and `warnings`. Without GitHub (the CLI) the branch is all.
 */
export async function openGroupPull(ctx: GroupRunContext, result: DepsGroupResult): Promise<void> {
  if (!ctx.octokit || !result.push) return;
  const { group, branch } = result;
  const shipped = { ...group, updates: result.applied };
  result.pullRequest = await openOrUpdatePullRequest(ctx.octokit, {
    owner: ctx.owner,
    repo: ctx.repo,
    head: branch,
    base: ctx.baseBranch,
    title: groupTitle(shipped),
    body: renderDepsPullRequestBody(
      { ...result, group: shipped },
      { now: ctx.clock.now(), warnings: ctx.planWarnings },
    ),
    draft: false,
  });
  const problem = await labelPullRequest(
    ctx.octokit,
    { owner: ctx.owner, repo: ctx.repo, number: result.pullRequest.number },
    labelsFor(group, ctx.labels),
  );
  if (problem) result.warnings = [problem];
}
