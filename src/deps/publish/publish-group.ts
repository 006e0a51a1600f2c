import { runGit } from "../../git/git-client.js";
import { openOrUpdatePullRequest } from "../../github/pulls.js";
import { type PushWorkOptions, pushWork } from "../../kernel/push-work.js";
import type { GroupContext } from "../group/context.js";
import type { DepsGroupResult } from "../group/group-result.js";
import { releaseSwaps } from "../managers/yarn/release-file.js";
import { groupTitle } from "../plan/groups.js";
import type { Update } from "../update.js";
import { renderDepsPullRequestBody } from "./pr-body.js";
import { labelPullRequest, labelsFor } from "./pull-labels.js";

/**
 * Pushes a committed group's branch: what the group's report gains (`push`,
 * or the error and where the commits went instead).
 */
export async function pushGroup(
  ctx: GroupContext,
  workspace: PushWorkOptions["workspace"],
  result: Pick<DepsGroupResult, "branch" | "applied">,
): Promise<Partial<DepsGroupResult>> {
  const { branch } = result;
  ctx.events.step(`Pushing \`${branch}\``);
  const pushed = await pushWork({
    workspace,
    branchPrefix: `${ctx.target.branchPrefix}deps/`,
    defaultBranch: ctx.target.defaultBranch,
    env: ctx.gitEnv,
    secrets: ctx.services.secrets,
    token: ctx.target.token,
    published: await publishedBlobs(ctx, workspace.dir, result.applied),
  });
  if (pushed.push) return { push: pushed.push };
  // Not on the group's branch: where the work went instead, for the report.
  const where = pushed.fallbackBranch
    ? `; the commits are on \`${pushed.fallbackBranch}\``
    : pushed.patch
      ? "; no branch took the commits"
      : "";
  return {
    status: "error",
    error: { stage: "publish", message: `${pushed.error?.message ?? "push failed"}${where}` },
  };
}

/**
 * The blob ids of the release files the group's commit writes from the
 * registry (yarn/release-file.ts), as the workspace's git names them (a
 * sha256 repository too): the push looks for only this process's secrets
 * in exactly those bytes. A file anyone changed after is another blob.
 */
async function publishedBlobs(
  ctx: GroupContext,
  dir: string,
  applied: readonly Update[],
): Promise<Set<string> | undefined> {
  const swaps = releaseSwaps(applied);
  if (swaps.length === 0 || !ctx.tools.releaseBytes) return undefined;
  const blobs = new Set<string>();
  for (const { update, swap } of swaps) {
    const bytes = await ctx.tools.releaseBytes(update, swap);
    blobs.add(
      (await runGit(dir, ["hash-object", "--stdin"], { env: ctx.gitEnv, input: bytes })).trim(),
    );
  }
  return blobs;
}

/**
 * Opens or updates a pushed group's pull request, labelled: the report with
 * its `pullRequest` and `warnings`. Without GitHub (the CLI) the branch is all.
 */
export async function openGroupPull(
  ctx: GroupContext,
  result: DepsGroupResult,
): Promise<DepsGroupResult> {
  const { octokit } = ctx.services;
  const { owner, repo } = ctx.target;
  if (!octokit || !result.push) return result;
  const { group, branch } = result;
  const shipped = { ...group, updates: result.applied };
  const pullRequest = await openOrUpdatePullRequest(octokit, {
    owner,
    repo,
    head: branch,
    base: ctx.target.baseBranch,
    title: groupTitle(shipped),
    body: renderDepsPullRequestBody(
      { ...result, group: shipped },
      { now: ctx.services.clock.now(), warnings: ctx.target.planWarnings },
    ),
    draft: false,
  });
  const problem = await labelPullRequest(
    octokit,
    { owner, repo, number: pullRequest.number },
    labelsFor(group, ctx.target.labels),
  );
  return {
    ...result,
    pullRequest,
    ...(problem ? { warnings: [...(result.warnings ?? []), problem] } : {}),
  };
}
