import { Octokit as Core } from "@octokit/core";
import { paginateRest } from "@octokit/plugin-paginate-rest";
import type { GitHubClient } from "../octokit.js";
import { REST_ROUTES } from "./routes.js";

/**
 * A GitHub client with the endpoints src/ calls (routes.ts) and
 * pagination, built on @octokit/core: what @octokit/rest gives, less the
 * table of every endpoint GitHub has, which the Action would load and index
 * at start for the forty-odd it calls. Each method is what
 * @octokit/plugin-rest-endpoint-methods makes of its route: the request
 * with the route's method and URL as defaults.
 */

const PagingOctokit = Core.plugin(paginateRest);
export type RouteClientOptions = NonNullable<ConstructorParameters<typeof PagingOctokit>[0]>;

export function createRouteClient(options: RouteClientOptions): GitHubClient {
  const octokit = new PagingOctokit(options);
  const rest = Object.fromEntries(
    Object.entries(REST_ROUTES).map(([scope, routes]) => [
      scope,
      Object.fromEntries(
        Object.entries(routes).map(([name, route]) => {
          const [method, url] = route.split(" ");
          return [name, octokit.request.defaults({ method, url })];
        }),
      ),
    ]),
  );
  // The methods are typed by the plugin's types for the same routes (RestEndpoints).
  return Object.assign(octokit, { rest }) as unknown as GitHubClient;
}
