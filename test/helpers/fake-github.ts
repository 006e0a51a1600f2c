import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";

/**
 * An in-memory GitHub REST API with just the routes patchwright uses. The
 * same state machine is mounted in nock (integration tests with Probot's
 * receive) or served on loopback (end-to-end tests with a real process), so
 * both kinds of test see one behaviour.
 */

export interface RecordedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
}

interface Comment {
  id: number;
  body: string;
  user: { login: string; id: number; type: string };
  created_at: string;
  html_url: string;
}

interface Pull {
  number: number;
  title: string;
  body: string;
  draft: boolean;
  head: { ref: string; sha: string; repo: { full_name: string; clone_url: string } | null };
  base: { ref: string; repo: { full_name: string } };
  html_url: string;
  state: "open";
}

export interface FakeGitHubOptions {
  owner: string;
  repo: string;
  /** Collaborator permission per login; anyone else is "none". */
  permissions?: Record<string, string>;
  /** Content of .github/patchwright.yml on the default branch, or absent. */
  configYaml?: string;
  /** Where configYaml is served; default `.github/patchwright.yml`. */
  configPath?: string;
  botSlug?: string;
  installationToken?: string;
  /** Other files on the default branch, served by the contents API (AGENTS.md, say). */
  files?: Record<string, string>;
}

export interface FakeGitHub {
  calls: RecordedCall[];
  comments: Map<number, Comment[]>;
  pulls: Pull[];
  reactions: Array<{ on: string; content: string }>;
  addPull(pull: Omit<Pull, "html_url" | "state">): void;
  handle(method: string, url: string, body: unknown): { status: number; body: unknown };
  /** Mounts the fake in nock for `baseUrl` (net connect must be disabled by the caller). */
  mountNock(baseUrl?: string): void;
  /** Serves the fake on 127.0.0.1; resolves to its base URL. */
  listen(): Promise<{ url: string; close(): Promise<void> }>;
}

export function createFakeGitHub(options: FakeGitHubOptions): FakeGitHub {
  const { owner, repo } = options;
  const base = `/repos/${owner}/${repo}`;
  const calls: RecordedCall[] = [];
  const comments = new Map<number, Comment[]>();
  const pulls: Pull[] = [];
  const reactions: FakeGitHub["reactions"] = [];
  let nextId = 1000;
  const now = () => new Date(Date.UTC(2026, 10, 29, 12, 0, nextId % 60)).toISOString();
  const html = (path: string) => `https://github.com/${owner}/${repo}${path}`;

  const routes: Array<
    [
      string,
      RegExp,
      (m: RegExpMatchArray, body: Record<string, unknown>, q: URLSearchParams) => [number, unknown],
    ]
  > = [
    [
      "POST",
      /^\/app\/installations\/\d+\/access_tokens$/,
      () => [
        201,
        {
          token: options.installationToken ?? "ghs_faketoken1234567890abcdefghijklmnop",
          expires_at: "2099-01-01T00:00:00Z",
        },
      ],
    ],
    ["GET", /^\/app$/, () => [200, { slug: options.botSlug ?? "patchwright", id: 1 }]],
    ["GET", new RegExp(`^${base}/installation$`), () => [200, { id: 42, app_id: 1 }]],
    [
      "GET",
      new RegExp(`^${base}/contents/(.+)$`),
      (m) => {
        const path = decodeURIComponent(m[1] ?? "");
        const isConfig = path === (options.configPath ?? ".github/patchwright.yml");
        const content = isConfig ? options.configYaml : options.files?.[path];
        if (content === undefined) return [404, { message: "Not Found" }];
        return [
          200,
          {
            type: "file",
            encoding: "base64",
            content: Buffer.from(content).toString("base64"),
            path,
          },
        ];
      },
    ],
    [
      "GET",
      new RegExp(`^${base}/collaborators/([^/]+)/permission$`),
      (m) => {
        const permission = options.permissions?.[m[1] ?? ""] ?? "none";
        return [200, { permission, role_name: permission, user: { login: m[1] } }];
      },
    ],
    [
      "POST",
      new RegExp(`^${base}/(issues/comments/\\d+|pulls/comments/\\d+|issues/\\d+)/reactions$`),
      (m, body) => {
        reactions.push({ on: m[1] ?? "", content: String(body.content) });
        return [201, { id: nextId++, content: body.content }];
      },
    ],
    [
      "GET",
      new RegExp(`^${base}/issues/(\\d+)/comments$`),
      (m) => [200, comments.get(Number(m[1])) ?? []],
    ],
    [
      "POST",
      new RegExp(`^${base}/issues/(\\d+)/comments$`),
      (m, body) => {
        const id = nextId++;
        const comment: Comment = {
          id,
          body: String(body.body),
          user: { login: `${options.botSlug ?? "patchwright"}[bot]`, id: 1, type: "Bot" },
          created_at: now(),
          html_url: html(`/issues/${m[1]}#issuecomment-${id}`),
        };
        comments.set(Number(m[1]), [...(comments.get(Number(m[1])) ?? []), comment]);
        return [201, comment];
      },
    ],
    [
      "PATCH",
      new RegExp(`^${base}/issues/comments/(\\d+)$`),
      (m, body) => {
        for (const list of comments.values()) {
          const found = list.find((c) => c.id === Number(m[1]));
          if (found) {
            found.body = String(body.body);
            return [200, found];
          }
        }
        return [404, { message: "Not Found" }];
      },
    ],
    [
      "POST",
      new RegExp(`^${base}/pulls/(\\d+)/comments/(\\d+)/replies$`),
      (m, body) => {
        const id = nextId++;
        return [201, { id, body: body.body, html_url: html(`/pull/${m[1]}#discussion_r${id}`) }];
      },
    ],
    [
      "PATCH",
      new RegExp(`^${base}/pulls/comments/(\\d+)$`),
      (m, body) => [
        200,
        { id: Number(m[1]), body: body.body, html_url: html(`#discussion_r${m[1]}`) },
      ],
    ],
    ["GET", new RegExp(`^${base}/pulls/(\\d+)/(files|reviews|comments)$`), () => [200, []]],
    [
      "GET",
      new RegExp(`^${base}/pulls/(\\d+)$`),
      (m) => {
        const pull = pulls.find((p) => p.number === Number(m[1]));
        return pull ? [200, pull] : [404, { message: "Not Found" }];
      },
    ],
    [
      "GET",
      new RegExp(`^${base}/pulls$`),
      (_m, _b, q) => {
        const head = q.get("head")?.split(":").pop();
        return [200, pulls.filter((p) => !head || p.head.ref === head)];
      },
    ],
    [
      "POST",
      new RegExp(`^${base}/pulls$`),
      (_m, body) => {
        const number = pulls.length + 100;
        const pull: Pull = {
          number,
          title: String(body.title),
          body: String(body.body),
          draft: body.draft === true,
          head: {
            ref: String(body.head),
            sha: "0".repeat(40),
            repo: { full_name: `${owner}/${repo}`, clone_url: "" },
          },
          base: { ref: String(body.base), repo: { full_name: `${owner}/${repo}` } },
          html_url: html(`/pull/${number}`),
          state: "open",
        };
        pulls.push(pull);
        return [201, pull];
      },
    ],
    [
      "PATCH",
      new RegExp(`^${base}/pulls/(\\d+)$`),
      (m, body) => {
        const pull = pulls.find((p) => p.number === Number(m[1]));
        if (!pull) return [404, { message: "Not Found" }];
        Object.assign(pull, body);
        return [200, pull];
      },
    ],
  ];

  const handle: FakeGitHub["handle"] = (method, url, rawBody) => {
    const parsed = new URL(url, "http://fake");
    const path = parsed.pathname.replace(/^\/api\/v3/, "");
    const body = (rawBody && typeof rawBody === "object" ? rawBody : {}) as Record<string, unknown>;
    calls.push({ method, path, query: parsed.searchParams, body });
    for (const [m, pattern, fn] of routes) {
      const match = method === m ? path.match(pattern) : null;
      if (match) {
        const [status, payload] = fn(match, body, parsed.searchParams);
        return { status, body: payload };
      }
    }
    return { status: 501, body: { message: `fake GitHub has no route for ${method} ${path}` } };
  };

  return {
    calls,
    comments,
    pulls,
    reactions,
    addPull(pull) {
      pulls.push({ ...pull, html_url: html(`/pull/${pull.number}`), state: "open" });
    },
    handle,
    mountNock(baseUrl = "https://api.github.com") {
      for (const method of ["get", "post", "patch", "put", "delete"] as const) {
        nock(baseUrl)
          .persist()
          [method](/.*/)
          .reply(function (uri, body) {
            const parsedBody = typeof body === "string" && body ? JSON.parse(body) : body;
            const { status, body: out } = handle(this.req.method.toUpperCase(), uri, parsedBody);
            return [status, out as nock.Body];
          });
      }
    },
    async listen() {
      const server: Server = createServer((req, res) => {
        let text = "";
        req.on("data", (chunk) => (text += chunk));
        req.on("end", () => {
          const { status, body } = handle(
            req.method ?? "GET",
            req.url ?? "/",
            text ? JSON.parse(text) : {},
          );
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify(body));
        });
      });
      await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
      const { port } = server.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      };
    },
  };
}
