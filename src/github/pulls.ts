import { isAmbiguousFailure, statusOf } from "./api-errors.js";
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
  const pull = await openPullFor(octokit, params);
  if (!pull) return undefined;
  return {
    number: pull.number,
    url: pull.html_url,
    title: pull.title,
    draft: pull.draft === true,
    baseRef: pull.base.ref,
  };
}

async function openPullFor(octokit: GitHubClient, params: FindPullRequestParams) {
  const { data } = await octokit.rest.pulls.list({
    owner: params.owner,
    repo: params.repo,
    head: `${params.headOwner ?? params.owner}:${params.head}`,
    state: "open",
    per_page: 10,
  });
  return data[0];
}

/**
 * Opens a pull request for the branch, or updates the title and body of the
 * one already open for it (a follow-up request on the same branch), so a
 * branch never gets two. The draft flag only applies to a new pull request:
 * a maintainer may have marked an existing one ready on purpose.
 *
 * Idempotent: when the creation's answer is lost (a 5xx, a broken
 * connection) or GitHub says a pull request already exists (a retry of a
 * creation that did go through, or a race), the branch's pull request is
 * looked up and used, so a retry never reports a failure for a pull request
 * that is there.
 */
export async function openOrUpdatePullRequest(
  octokit: GitHubClient,
  params: OpenPullRequestParams,
): Promise<PullRequestResult> {
  const existing = await findPullRequestForBranch(octokit, params);
  if (existing) return updatePullRequest(octokit, params, existing.number);
  try {
    return await createPullRequest(octokit, params);
  } catch (error) {
    if (!isAmbiguousFailure(error) && !isAlreadyExists(error)) throw error;
    const pull = await openPullFor(octokit, params);
    if (!pull) throw error;
    // There was none a moment ago: one with exactly our title and body is the
    // one our own request created; anything else gets them, like an update.
    if (pull.title !== params.title || pull.body !== params.body) {
      return updatePullRequest(octokit, params, pull.number);
    }
    return { number: pull.number, url: pull.html_url, created: true, draft: pull.draft === true };
  }
}

async function updatePullRequest(
  octokit: GitHubClient,
  params: OpenPullRequestParams,
  pullNumber: number,
): Promise<PullRequestResult> {
  const { data } = await octokit.rest.pulls.update({
    owner: params.owner,
    repo: params.repo,
    pull_number: pullNumber,
    title: params.title,
    body: params.body,
  });
  return { number: data.number, url: data.html_url, created: false, draft: data.draft === true };
}

async function createPullRequest(
  octokit: GitHubClient,
  params: OpenPullRequestParams,
): Promise<PullRequestResult> {
  const { owner, repo, title, body } = params;
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
    if (!params.draft || !isValidationError(error, /draft/i)) throw error;
    // Some plans and private repositories have no draft pull requests; a ready one is better than none.
    const { data } = await create(false);
    return { number: data.number, url: data.html_url, created: true, draft: false };
  }
}

/** GitHub's 422 for a second open pull request from the same head to the same base. */
function isAlreadyExists(error: unknown): boolean {
  return isValidationError(error, /pull request already exists/i);
}

function isValidationError(error: unknown, pattern: RegExp): boolean {
  if (statusOf(error) !== 422) return false;
  const err = error as { message?: unknown; response?: { data?: unknown } };
  return pattern.test(`${String(err.message)} ${JSON.stringify(err.response?.data ?? "")}`);
}

export interface IssuePullRequest {
  number: number;
  url: string;
  headRef: string;
  baseRef: string;
}

/**
 * The bot's open pull request for an issue, if one is still open: a branch
 * in the repository itself named `<prefix>issue-<n>` or `<prefix>issue-<n>-…`
 * (branch.ts). A later request on the issue adds its commits there instead
 * of stacking a second pull request on the first.
 */
export async function findIssuePullRequest(
  octokit: GitHubClient,
  params: { owner: string; repo: string; issueNumber: number; prefix: string },
  /** The repository's open pull requests, when the caller listed them already (listOpenPulls). */
  open?: Promise<OpenPulls>,
): Promise<IssuePullRequest | undefined> {
  const stem = `${params.prefix}issue-${params.issueNumber}`;
  const fullName = `${params.owner}/${params.repo}`.toLowerCase();
  const pulls = await (open ?? listOpenPulls(octokit, params));
  const ours = pulls
    .filter(
      (p) =>
        p.head.repo?.full_name.toLowerCase() === fullName &&
        (p.head.ref === stem || p.head.ref.startsWith(`${stem}-`)),
    )
    // The newest, should a maintainer have left two open.
    .sort((a, b) => b.number - a.number)[0];
  return ours
    ? { number: ours.number, url: ours.html_url, headRef: ours.head.ref, baseRef: ours.base.ref }
    : undefined;
}

export type OpenPulls = Awaited<ReturnType<GitHubClient["rest"]["pulls"]["list"]>>["data"];

/** Every open pull request of the repository (where an issue's pull request of the bot's is looked for). */
export function listOpenPulls(
  octokit: GitHubClient,
  params: { owner: string; repo: string },
): Promise<OpenPulls> {
  return octokit.paginate(octokit.rest.pulls.list, {
    owner: params.owner,
    repo: params.repo,
    state: "open",
    per_page: 100,
  });
}
