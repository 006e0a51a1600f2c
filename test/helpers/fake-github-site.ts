import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createFakeGitHub, type FakeGitHub, type FakeGitHubOptions } from "./fake-github.js";
import {
  type FakeOAuthGitHub,
  type FakePermission,
  startFakeOAuthGitHub,
} from "./fake-github-oauth.js";
import { readBody } from "./http-body.js";

/**
 * One GitHub Enterprise host on loopback, as GHE_HOST names it, for the App
 * and its job pages at once: the OAuth web flow and whatever a person's own
 * token asks (GET /user, GET /repos/:owner/:repo by their permission) go to
 * fake-github-oauth.ts; everything else (the installation's token, issues,
 * comments, pull requests) to fake-github.ts's REST API. A browser is sent
 * to /login/oauth/authorize here and comes back with a code.
 */

export interface FakeGitHubSite {
  /** http://127.0.0.1:<port>, the host GHE_HOST and GHE_PROTOCOL name. */
  url: string;
  /** The App's side: calls, comments, pull requests. */
  api: FakeGitHub;
  /** People's side: who signs in next, their permissions, the tokens handed out. */
  oauth: FakeOAuthGitHub;
  close(): Promise<void>;
}

export async function startFakeGitHubSite(options: {
  clientId: string;
  clientSecret: string;
  /** login -> "owner/name" -> permission, for people's own tokens. */
  people: Record<string, Record<string, FakePermission>>;
  api: FakeGitHubOptions;
}): Promise<FakeGitHubSite> {
  const api = createFakeGitHub(options.api);
  const oauth = await startFakeOAuthGitHub({
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    permissions: options.people,
  });
  const oauthOrigin = new URL(oauth.apiBaseUrl).origin;
  const isPerson = (authorization: string | undefined) =>
    oauth.tokens.has((authorization ?? "").replace(/^(token|bearer) /i, ""));

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = req.url ?? "/";
      const text = await readBody(req);
      const path = new URL(url, "http://fake").pathname;
      if (
        path.startsWith("/login/oauth/") ||
        path === "/api/v3/user" ||
        isPerson(req.headers.authorization)
      ) {
        // Passed on as it came; a redirect goes back to the browser as it is.
        const headers: Record<string, string> = {};
        for (const name of ["authorization", "content-type", "accept"]) {
          const value = req.headers[name];
          if (typeof value === "string") headers[name] = value;
        }
        const answer = await fetch(`${oauthOrigin}${url}`, {
          method: req.method ?? "GET",
          headers,
          redirect: "manual",
          ...(text ? { body: text } : {}),
        });
        const out: Record<string, string> = {};
        for (const name of ["content-type", "location"]) {
          const value = answer.headers.get(name);
          if (value) out[name] = value;
        }
        res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
        return;
      }
      const out = api.handle(
        req.method ?? "GET",
        url,
        text ? JSON.parse(text) : {},
        req.headers.authorization,
      );
      if (out.drop) {
        req.socket.destroy();
        return;
      }
      res.writeHead(out.status, { "content-type": "application/json", ...out.headers });
      res.end(JSON.stringify(out.body));
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    api,
    oauth,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await oauth.close();
    },
  };
}
