import { Octokit } from "@octokit/rest";
import type { GitHubClient } from "../../github/octokit.js";
import type { UpstreamSource } from "./upstream.js";

/**
 * A package's release notes from its GitHub repository's releases (the
 * newest 50), for repositories on github.com; anything else has none here.
 */
export function githubReleases(octokit: GitHubClient): NonNullable<UpstreamSource["releases"]> {
  return async (repositoryUrl, signal) => {
    const match = /^https:\/\/github\.com\/([\w.-]+)\/([\w.-]+)$/.exec(repositoryUrl);
    if (!match?.[1] || !match[2]) return [];
    const { data } = await octokit.rest.repos.listReleases({
      owner: match[1],
      repo: match[2],
      per_page: 50,
      ...(signal ? { request: { signal } } : {}),
    });
    return data.map((release) => ({ tag: release.tag_name, body: release.body ?? "" }));
  };
}

/**
 * The release lookup of a caller that has no App or Action client (the
 * CLI): a client of its own with the user's token (`GITHUB_TOKEN`, else
 * `GH_TOKEN`, as the gh CLI reads them); none without one, since
 * unauthenticated calls run out after 60 an hour.
 */
export function releasesFromEnv(
  env: Record<string, string | undefined>,
): UpstreamSource["releases"] {
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  if (!token) return undefined;
  // Failed requests become the upstream text's problems; Octokit's own log would print them again.
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  return githubReleases(new Octokit({ auth: token, userAgent: "patchwright-cli", log: quiet }));
}
