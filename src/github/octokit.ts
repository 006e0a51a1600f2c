import type { Octokit } from "@octokit/rest";

/**
 * The GitHub client every github/ module takes as a parameter. Probot's
 * `context.octokit` and an `@octokit/rest` instance (the Action, the CLI)
 * both fit, so the same code serves every entry point.
 */
export type GitHubClient = Pick<Octokit, "rest" | "paginate" | "request">;

export interface RepoRef {
  owner: string;
  repo: string;
}
