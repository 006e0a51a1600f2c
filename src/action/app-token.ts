import { createSign } from "node:crypto";
import { errorMessage } from "../error-message.js";
import type { GitHubClient } from "../github/octokit.js";

/**
 * Acting as the GitHub App from a workflow: a short-lived JWT signed with
 * the App's private key, then an installation token for this one
 * repository. Pushes made with it trigger other workflows (CI on the PR),
 * which the workflow's own GITHUB_TOKEN never does.
 */

export interface AppCredentials {
  id: string;
  privateKey: string;
}

/** GitHub refuses JWTs that live longer than ten minutes; a minute of clock skew is allowed for. */
const JWT_LIFETIME_S = 9 * 60;
const CLOCK_SKEW_S = 60;

/** Secrets pasted through some UIs arrive with literal "\n" instead of line breaks. */
function normalizeKey(key: string): string {
  return key.includes("\n") ? key : key.replace(/\\n/g, "\n");
}

export function createAppJwt(app: AppCredentials, nowMs: number): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const now = Math.floor(nowMs / 1000);
  const unsigned = `${encode({ alg: "RS256", typ: "JWT" })}.${encode({
    iat: now - CLOCK_SKEW_S,
    exp: now + JWT_LIFETIME_S,
    iss: Number(app.id),
  })}`;
  const signature = createSign("RSA-SHA256")
    .update(unsigned)
    .sign(normalizeKey(app.privateKey), "base64url");
  return `${unsigned}.${signature}`;
}

export interface InstallationAuth {
  token: string;
  /** The App's account, `slug[bot]`: its own comments and pushes start no job. */
  botLogin: string;
  /**
   * Whether the token may push changes to .github/workflows/ (`workflows:
   * write`); undefined when that cannot be known (a github_token input).
   */
  canPushWorkflows?: boolean | undefined;
}

/**
 * `clientFor(jwt)` builds a client that authenticates as the App (a Bearer
 * JWT); the token it returns is limited to the repository the job is for.
 */
export async function createInstallationToken(options: {
  app: AppCredentials;
  owner: string;
  repo: string;
  clock: { now(): number };
  clientFor: (auth: string) => GitHubClient;
}): Promise<InstallationAuth> {
  let jwt: string;
  try {
    jwt = createAppJwt(options.app, options.clock.now());
  } catch (error) {
    const reason = errorMessage(error);
    throw new Error(
      `input private_key: could not sign with it (${reason}); paste the App's .pem file whole`,
    );
  }
  const client = options.clientFor(jwt);
  const { data: installation } = await client.rest.apps
    .getRepoInstallation({ owner: options.owner, repo: options.repo })
    .catch((error: unknown) => {
      throw new Error(
        `the App ${options.app.id} is not installed on ${options.owner}/${options.repo} (or app_id and private_key do not match): ${errorMessage(error)}`,
      );
    });
  const { data: app } = await client.rest.apps.getAuthenticated();
  const { data } = await client.rest.apps.createInstallationAccessToken({
    installation_id: installation.id,
    repositories: [options.repo],
  });
  return {
    token: data.token,
    botLogin: `${app?.slug ?? "patchwright"}[bot]`,
    canPushWorkflows: data.permissions?.workflows === "write",
  };
}
