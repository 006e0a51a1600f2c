import { exchangeWebFlowCode, getWebFlowAuthorizationUrl } from "@octokit/oauth-methods";
import { Octokit } from "@octokit/rest";
import type { PagesSettings } from "../settings.js";

/**
 * GitHub's web flow through the App's own OAuth client: the authorize URL,
 * then the code exchanged for the user's token, then who they are. Against
 * the configured API root, so GitHub Enterprise Server (and a fake GitHub in
 * tests) works: the OAuth endpoints are derived from it by oauth-methods.
 */

export function callbackUrl(settings: PagesSettings): string {
  return `${settings.publicUrl}/jobs/callback`;
}

function oauthRequest(settings: PagesSettings) {
  return new Octokit({ baseUrl: settings.apiBaseUrl }).request;
}

export function authorizeUrl(settings: PagesSettings, state: string): string {
  return getWebFlowAuthorizationUrl({
    clientType: "github-app",
    clientId: settings.clientId,
    redirectUrl: callbackUrl(settings),
    state,
    request: oauthRequest(settings),
  }).url;
}

/** The user's token for the code GitHub sent back. */
export async function exchangeCode(settings: PagesSettings, code: string): Promise<string> {
  const { authentication } = await exchangeWebFlowCode({
    clientType: "github-app",
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    code,
    redirectUrl: callbackUrl(settings),
    request: oauthRequest(settings),
  });
  return authentication.token;
}

/** The signed-in person's login, as GitHub says it for their token. */
export async function readLogin(settings: PagesSettings, token: string): Promise<string> {
  const response = await fetch(`${settings.apiBaseUrl}/user`, {
    headers: { authorization: `token ${token}`, accept: "application/vnd.github+json" },
  });
  if (!response.ok) throw new Error(`GET /user answered ${response.status}`);
  const user = (await response.json()) as { login?: unknown };
  if (typeof user.login !== "string" || !user.login) throw new Error("GET /user gave no login");
  return user.login;
}
