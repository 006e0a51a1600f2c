/**
 * An @octokit/core auth strategy for a token that changes during the run
 * (an App's installation token, renewed as it nears its hour): each
 * request asks `current` for the one to send.
 */

/** What @octokit/core hands a strategy's hook: the request, with its endpoint's merge. */
interface HookRequest {
  (options: unknown): Promise<unknown>;
  endpoint: {
    merge(route: unknown, parameters?: unknown): { headers: Record<string, string | undefined> };
  };
}

export function createTokenSourceAuth(options: { current: () => Promise<string> }) {
  const auth = async () => ({
    type: "token" as const,
    tokenType: "installation" as const,
    token: await options.current(),
  });
  const hook = async (request: HookRequest, route: unknown, parameters?: unknown) => {
    const endpoint = request.endpoint.merge(route, parameters);
    endpoint.headers.authorization = `token ${await options.current()}`;
    return request(endpoint);
  };
  return Object.assign(auth, { hook });
}
