import type { GitHubClient } from "../github/octokit.js";
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
