/**
 * Tokens never go into a URL, a config file or the agent's environment: they
 * ride along as an HTTP header on the single git command that needs them.
 */

/**
 * A token, or where to get the one to use now. An installation token lasts
 * an hour, and a job can outlast it (a dependency run's groups, an agent
 * given more minutes): each git command that reaches the remote asks for
 * the current one, so a push at the end of a long job still gets in.
 */
export type GitToken = string | (() => Promise<string | undefined>);

/** The token to send now. */
export async function currentToken(token: GitToken | undefined): Promise<string | undefined> {
  return typeof token === "function" ? await token() : token;
}

export interface SplitUrl {
  /** The URL with any user name and password removed. */
  url: string;
  /** A password (or a bare user name, GitHub's token-as-user form) found in the URL. */
  token: string | undefined;
}

export function splitCredentials(raw: string): SplitUrl {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // scp-like ssh addresses (git@host:owner/repo) and plain paths carry no token.
    return { url: raw, token: undefined };
  }
  if (!parsed.username && !parsed.password) return { url: raw, token: undefined };
  const token = decodeURIComponent(parsed.password || parsed.username) || undefined;
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.toString(), token };
}

export function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** The value GitHub (and git http-backend behind Basic auth) accepts for an installation token. */
export function basicAuthHeader(token: string): string {
  return `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
}

/**
 * Config entries that attach the token to requests for this URL's host only
 * (`http.<url>.*` matching), so a redirect or a rewritten remote elsewhere
 * never receives it. Nothing for non-HTTP URLs.
 */
export function authConfig(url: string, token: string): Array<[string, string]> {
  if (!isHttpUrl(url)) return [];
  const origin = new URL(url).origin;
  return [[`http.${origin}/.extraHeader`, basicAuthHeader(token)]];
}

/** Replaces the token and its Basic form in text that may reach a log or a comment. */
export function redactToken(text: string, token: string | undefined): string {
  if (!token) return text;
  const encoded = Buffer.from(`x-access-token:${token}`).toString("base64");
  return text.split(token).join("***").split(encoded).join("***");
}
