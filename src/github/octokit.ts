import type { Octokit } from "@octokit/rest";
import type { RestEndpoints } from "./rest/routes.js";

/**
 * The GitHub client every github/ module takes as a parameter. Probot's
 * `context.octokit`, an `@octokit/rest` instance (the CLI) and the Action's
 * route client (rest/route-client.ts) all fit, so the same code serves every
 * entry point. Its `rest` has the endpoints of rest/routes.ts only.
 */
export type GitHubClient = Pick<Octokit, "paginate" | "request"> & { rest: RestEndpoints };

export interface RepoRef {
  owner: string;
  repo: string;
}
