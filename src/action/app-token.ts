import { createSign } from "node:crypto";
import { errorMessage } from "../error-message.js";
import type { GitHubClient } from "../github/octokit.js";
import { nearsItsEnd } from "../github/token-life.js";

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
  /**
   * The token to use now (App credentials only): the first, or a new one
   * minted once it nears the end of its hour. A run can outlast the first
   * (a dependency run of many groups); the API client and git ask this.
   */
  current?: (() => Promise<string>) | undefined;
}

/**
 * `clientFor(jwt)` builds a client that authenticates as the App (a Bearer
 * JWT); the token it returns is limited to the repository the job is for.
 * `onRenewed` is told of each token minted after the first (to mask it).
 */
export async function createInstallationToken(options: {
  app: AppCredentials;
  owner: string;
  repo: string;
  clock: { now(): number };
  clientFor: (auth: string) => GitHubClient;
  onRenewed?: (token: string) => void;
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
  const mint = async (as: GitHubClient) =>
    (
      await as.rest.apps.createInstallationAccessToken({
        installation_id: installation.id,
        repositories: [options.repo],
      })
    ).data;
  const data = await mint(client);
  let held = { token: data.token, expiresAt: data.expires_at };
  let renewing: Promise<string> | undefined;
  const renew = async () => {
    // A new JWT each time: the first one lives ten minutes.
    const next = await mint(options.clientFor(createAppJwt(options.app, options.clock.now())));
    held = { token: next.token, expiresAt: next.expires_at };
    options.onRenewed?.(next.token);
    return next.token;
  };
  return {
    token: data.token,
    botLogin: `${app?.slug ?? "patchwright"}[bot]`,
    canPushWorkflows: data.permissions?.workflows === "write",
    current: async () => {
      if (!nearsItsEnd(held.expiresAt, options.clock.now())) return held.token;
      // Commands asking at once share one renewal.
      renewing ??= renew().finally(() => {
        renewing = undefined;
      });
      return renewing;
    },
  };
}
