import type { GitHubClient } from "./octokit.js";

export interface BranchPullRequest {
  number: number;
  url: string;
  title: string;
  draft: boolean;
  baseRef: string;
}

export interface FindPullRequestParams {
  owner: string;
  repo: string;
  /** Branch name, without owner. */
  head: string;
  /** Owner of the head branch's repository; the base repository's owner by default. */
  headOwner?: string | undefined;
}

export interface OpenPullRequestParams extends FindPullRequestParams {
  base: string;
  title: string;
  body: string;
  draft: boolean;
}

export interface PullRequestResult {
  number: number;
  url: string;
  /** False when an open pull request for the branch existed and was updated. */
  created: boolean;
  /** Whether the pull request is a draft (a new one may not be, when the repository has no drafts). */
  draft: boolean;
}

/** The open pull request whose head is this branch, if there is one. */
export async function findPullRequestForBranch(
  octokit: GitHubClient,
  params: FindPullRequestParams,
): Promise<BranchPullRequest | undefined> {
  const { data } = await octokit.rest.pulls.list({
    owner: params.owner,
    repo: params.repo,
    head: `${params.headOwner ?? params.owner}:${params.head}`,
    state: "open",
    per_page: 10,
  });
  const pull = data[0];
  if (!pull) return undefined;
  return {
    number: pull.number,
    url: pull.html_url,
    title: pull.title,
    draft: pull.draft === true,
    baseRef: pull.base.ref,
  };
}

/**
 * Opens a pull request for the branch, or updates the title and body of the
 * one already open for it (a follow-up request on the same branch), so a
 * branch never gets two. The draft flag only applies to a new pull request:
 * a maintainer may have marked an existing one ready on purpose.
 */
export async function openOrUpdatePullRequest(
  octokit: GitHubClient,
  params: OpenPullRequestParams,
): Promise<PullRequestResult> {
  const { owner, repo, title, body } = params;
  const existing = await findPullRequestForBranch(octokit, params);
  if (existing) {
    const { data } = await octokit.rest.pulls.update({
      owner,
      repo,
      pull_number: existing.number,
      title,
      body,
    });
    return { number: data.number, url: data.html_url, created: false, draft: data.draft === true };
  }
  const head =
    params.headOwner && params.headOwner !== owner
      ? `${params.headOwner}:${params.head}`
      : params.head;
  const create = (draft: boolean) =>
    octokit.rest.pulls.create({ owner, repo, head, base: params.base, title, body, draft });
  try {
    const { data } = await create(params.draft);
    return { number: data.number, url: data.html_url, created: true, draft: data.draft === true };
  } catch (error) {
    if (!params.draft || !isDraftUnsupported(error)) throw error;
    // Some plans and private repositories have no draft pull requests; a ready one is better than none.
    const { data } = await create(false);
    return { number: data.number, url: data.html_url, created: true, draft: false };
  }
}

function isDraftUnsupported(error: unknown): boolean {
  const err = error as {
    status?: unknown;
    message?: unknown;
    response?: { data?: unknown };
  } | null;
  if (err?.status !== 422) return false;
  return /draft/i.test(`${String(err.message)} ${JSON.stringify(err.response?.data ?? "")}`);
}
