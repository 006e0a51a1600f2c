import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "./http-body.js";

/**
 * GitHub's OAuth web flow and the two REST routes the job pages ask with a
 * person's token, on loopback: /login/oauth/authorize sends the browser
 * straight back with a code for whoever `signInAs` named, the code becomes
 * a token, /api/v3/user says whose, and /api/v3/repos/:owner/:repo answers
 * by that person's permission (none: 404).
 */

export type FakePermission = "read" | "write";

export interface FakeOAuthGitHub {
  /** The API root (GHE style), for PagesSettings.apiBaseUrl. */
  apiBaseUrl: string;
  /** Who the next authorize request signs in. */
  signInAs(login: string): void;
  /** login -> "owner/name" -> permission */
  permissions: Map<string, Map<string, FakePermission>>;
  /** Tokens handed out (a page must never show one). */
  tokens: Map<string, string>;
  repoRequests: string[];
  close(): Promise<void>;
}

export async function startFakeOAuthGitHub(options: {
  clientId: string;
  clientSecret: string;
  permissions?: Record<string, Record<string, FakePermission>>;
}): Promise<FakeOAuthGitHub> {
  const permissions = new Map<string, Map<string, FakePermission>>();
  for (const [login, repos] of Object.entries(options.permissions ?? {})) {
    permissions.set(login, new Map(Object.entries(repos)));
  }
  let next = "";
  const codes = new Map<string, string>();
  const tokens = new Map<string, string>();
  const repoRequests: string[] = [];

  const json = (res: import("node:http").ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const body = await readBody(req);
      if (req.method === "GET" && url.pathname === "/login/oauth/authorize") {
        if (url.searchParams.get("client_id") !== options.clientId) return json(res, 400, {});
        const code = randomBytes(8).toString("hex");
        codes.set(code, next);
        const back = new URL(url.searchParams.get("redirect_uri") ?? "");
        back.searchParams.set("code", code);
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        res.writeHead(302, { location: back.toString() }).end();
        return;
      }
      if (req.method === "POST" && url.pathname === "/login/oauth/access_token") {
        const sent = (
          body.startsWith("{") ? JSON.parse(body) : Object.fromEntries(new URLSearchParams(body))
        ) as Record<string, string>;
        const login = codes.get(sent.code ?? "");
        if (
          sent.client_id !== options.clientId ||
          sent.client_secret !== options.clientSecret ||
          !login
        ) {
          return json(res, 200, {
            error: "bad_verification_code",
            error_description: "bad code",
            error_uri: "x",
          });
        }
        codes.delete(sent.code ?? "");
        const token = `ghu_${randomBytes(18).toString("hex")}`;
        tokens.set(token, login);
        return json(res, 200, { access_token: token, token_type: "bearer", scope: "" });
      }
      const login = tokens.get((req.headers.authorization ?? "").replace(/^(token|bearer) /i, ""));
      if (url.pathname.startsWith("/api/v3/") && !login)
        return json(res, 401, { message: "Bad credentials" });
      if (req.method === "GET" && url.pathname === "/api/v3/user") return json(res, 200, { login });
      const repo = /^\/api\/v3\/repos\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (req.method === "GET" && repo && login) {
        const name = `${repo[1]}/${repo[2]}`.toLowerCase();
        repoRequests.push(`${login} ${name}`);
        const permission = permissions.get(login)?.get(name);
        if (!permission) return json(res, 404, { message: "Not Found" });
        return json(res, 200, {
          full_name: name,
          permissions: { pull: true, push: permission === "write", admin: false },
        });
      }
      json(res, 404, { message: "Not Found" });
    })();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    apiBaseUrl: `http://127.0.0.1:${port}/api/v3`,
    signInAs(login) {
      next = login;
    },
    permissions,
    tokens,
    repoRequests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
