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
  /** The Authorization header, when the transport passed it on. */
  authorization?: string;
  /** performance.now() when the request arrived. */
  at: number;
}

interface Comment {
  id: number;
  body: string;
  user: { login: string; id: number; type: string };
  created_at: string;
  html_url: string;
}

export interface Pull {
  number: number;
  title: string;
  body: string;
  draft: boolean;
  head: { ref: string; sha: string; repo: { full_name: string; clone_url: string } | null };
  base: { ref: string; repo: { full_name: string } };
  html_url: string;
  state: "open";
  user?: { login: string; type?: string };
  mergeable?: boolean | null;
  mergeable_state?: string;
}

/** A route of a test's own, tried before the built-in ones: [method, full path pattern, handler]. */
export type FakeRoute = [
  string,
  RegExp,
  (m: RegExpMatchArray, body: Record<string, unknown>, q: URLSearchParams) => FakeResponse,
];

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
  /**
   * Mints each installation token instead (its value and GitHub's
   * `expires_at`): a test of tokens that run out during a job.
   */
  mintToken?: () => { token: string; expiresAt: string };
  /** The App's webhook deliveries (`GET /app/hook/deliveries`), newest first. */
  deliveries?: Array<{
    id: number;
    guid: string;
    delivered_at: string;
    status_code: number;
    event: string;
  }>;
  /** Told of each delivery the App asks GitHub to make again. */
  onRedeliver?: (id: number) => void;
  /** What the installation token may do, as GitHub reports it when minting it. */
  tokenPermissions?: Record<string, string>;
  /** Other files on the default branch, served by the contents API (AGENTS.md, say). */
  files?: Record<string, string>;
  /**
   * Answer a second open pull request from the same head to the same base
   * with GitHub's 422 "A pull request already exists" (off by default).
   */
  onePullPerBranch?: boolean;
  /** More routes (Actions, reviews, the Git Data API...), tried first. */
  routes?: FakeRoute[];
  /** Issues as `GET /issues/:number` answers; any other number is an open issue titled "Issue <n>". */
  issues?: Record<number, { title: string; body?: string; state?: "open" | "closed" }>;
  /**
   * Holds a request's answer (over `listen` only) until the promise it
   * returns settles: GitHub slow on one call, to see what goes on meanwhile.
   */
  holdAnswer?: ((method: string, path: string) => Promise<void> | undefined) | undefined;
}

/**
 * A failure injected in front of the routes: GitHub failing, limiting, or
 * the connection breaking, before or after the request took effect.
 */
export interface Fault {
  method: string;
  /** Matched against the path (without /api/v3). */
  path: RegExp;
  /** How many matching requests in a row it hits (default 1). */
  times?: number;
  /** Run the route first: the change is made, but its answer is lost. */
  afterHandling?: boolean;
  /** The answer instead of the route's (default 502). */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Break the connection instead of answering (a network error). */
  drop?: boolean;
}

export interface FakeResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Break the connection instead of answering. */
  drop?: boolean;
}

export interface UserReaction {
  id: number;
  commentId: number;
  content: string;
  user: { login: string; id: number; type: string };
  created_at: string;
}

export interface FakeGitHub {
  calls: RecordedCall[];
  comments: Map<number, Comment[]>;
  pulls: Pull[];
  reactions: Array<{ on: string; content: string }>;
  /** Reactions people gave on issue comments (GitHub sends no webhook for them): see `react`. */
  userReactions: UserReaction[];
  /** Someone reacts to an issue comment (a 👍 on a plan, say). */
  react(commentId: number, user: { login: string; type?: string }, content?: string): void;
  addPull(pull: Omit<Pull, "html_url" | "state">): void;
  /** Fails the next matching requests (see Fault); faults are used in the order given. */
  inject(fault: Fault): void;
  handle(method: string, url: string, body: unknown, authorization?: string): FakeResponse;
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
  const userReactions: UserReaction[] = [];
  const findComment = (id: number) => {
    for (const list of comments.values()) {
      const found = list.find((c) => c.id === id);
      if (found) return found;
    }
    return undefined;
  };
  const faults: Array<Fault & { left: number }> = [];
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
          ...(options.mintToken
            ? (({ token, expiresAt }) => ({ token, expires_at: expiresAt }))(options.mintToken())
            : {
                token: options.installationToken ?? "ghs_faketoken1234567890abcdefghijklmnop",
                expires_at: "2099-01-01T00:00:00Z",
              }),
          permissions: options.tokenPermissions ?? {
            contents: "write",
            issues: "write",
            pull_requests: "write",
            metadata: "read",
          },
        },
      ],
    ],
    ["GET", /^\/app$/, () => [200, { slug: options.botSlug ?? "patchwright", id: 1 }]],
    ["GET", /^\/app\/hook\/deliveries$/, () => [200, options.deliveries ?? []]],
    [
      "POST",
      /^\/app\/hook\/deliveries\/(\d+)\/attempts$/,
      (m) => {
        options.onRedeliver?.(Number(m[1]));
        return [202, {}];
      },
    ],
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
        const permission = options.permissions?.[decodeURIComponent(m[1] ?? "")] ?? "none";
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
      new RegExp(`^${base}/issues/comments/(\\d+)$`),
      (m) => {
        const found = findComment(Number(m[1]));
        if (!found) return [404, { message: "Not Found" }];
        const given = userReactions.filter((r) => r.commentId === found.id);
        const count = (content: string) => given.filter((r) => r.content === content).length;
        return [200, { ...found, reactions: { total_count: given.length, "+1": count("+1") } }];
      },
    ],
    [
      "GET",
      new RegExp(`^${base}/issues/comments/(\\d+)/reactions$`),
      (m, _b, q) => [
        200,
        userReactions.filter(
          (r) =>
            r.commentId === Number(m[1]) && (!q.get("content") || r.content === q.get("content")),
        ),
      ],
    ],
    [
      "GET",
      new RegExp(`^${base}/issues/(\\d+)$`),
      (m) => {
        const number = Number(m[1]);
        const issue = options.issues?.[number];
        return [
          200,
          {
            number,
            title: issue?.title ?? `Issue ${number}`,
            body: issue?.body ?? "",
            state: issue?.state ?? "open",
            locked: false,
            html_url: html(`/issues/${number}`),
          },
        ];
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
        const twin = pulls.find((p) => p.head.ref === body.head && p.base.ref === body.base);
        if (options.onePullPerBranch && twin) {
          const message = `A pull request already exists for ${owner}:${String(body.head)}.`;
          return [
            422,
            {
              message: "Validation Failed",
              errors: [{ resource: "PullRequest", code: "custom", message }],
            },
          ];
        }
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

  const route = (
    method: string,
    path: string,
    body: Record<string, unknown>,
    q: URLSearchParams,
  ) => {
    for (const [m, pattern, fn] of options.routes ?? []) {
      const match = method === m ? path.match(pattern) : null;
      if (match) return fn(match, body, q);
    }
    for (const [m, pattern, fn] of routes) {
      const match = method === m ? path.match(pattern) : null;
      if (match) {
        const [status, payload] = fn(match, body, q);
        return { status, body: payload };
      }
    }
    return { status: 501, body: { message: `fake GitHub has no route for ${method} ${path}` } };
  };

  const handle: FakeGitHub["handle"] = (method, url, rawBody, authorization) => {
    const parsed = new URL(url, "http://fake");
    const path = parsed.pathname.replace(/^\/api\/v3/, "");
    const body = (rawBody && typeof rawBody === "object" ? rawBody : {}) as Record<string, unknown>;
    calls.push({
      method,
      path,
      query: parsed.searchParams,
      body,
      ...(authorization ? { authorization } : {}),
      at: performance.now(),
    });
    const fault = faults.find((f) => f.left > 0 && f.method === method && f.path.test(path));
    if (!fault) return route(method, path, body, parsed.searchParams);
    fault.left -= 1;
    if (fault.afterHandling) route(method, path, body, parsed.searchParams);
    return {
      status: fault.status ?? 502,
      body: fault.body ?? { message: "Server Error" },
      ...(fault.headers ? { headers: fault.headers } : {}),
      ...(fault.drop ? { drop: true } : {}),
    };
  };

  return {
    calls,
    comments,
    pulls,
    reactions,
    userReactions,
    react(commentId, user, content = "+1") {
      const id = nextId++;
      const type = user.type ?? (user.login.endsWith("[bot]") ? "Bot" : "User");
      userReactions.push({
        id,
        commentId,
        content,
        user: { login: user.login, id: id + 100_000, type },
        created_at: now(),
      });
    },
    addPull(pull) {
      pulls.push({ ...pull, html_url: html(`/pull/${pull.number}`), state: "open" });
    },
    inject(fault) {
      faults.push({ ...fault, left: fault.times ?? 1 });
    },
    handle,
    mountNock(baseUrl = "https://api.github.com") {
      for (const method of ["get", "post", "patch", "put", "delete"] as const) {
        nock(baseUrl)
          .persist()
          [method](/.*/)
          .reply(async function (uri, body) {
            const parsedBody = typeof body === "string" && body ? JSON.parse(body) : body;
            const auth = this.req.headers.authorization;
            const out = handle(this.req.method.toUpperCase(), uri, parsedBody, auth);
            // nock destroys the request with what an async reply function rejects with.
            if (out.drop) throw new Error("socket hang up (injected)");
            return [out.status, out.body as nock.Body, out.headers ?? {}];
          });
      }
    },
    async listen() {
      const server: Server = createServer((req, res) => {
        let text = "";
        req.on("data", (chunk) => (text += chunk));
        req.on("end", async () => {
          const path = new URL(req.url ?? "/", "http://fake").pathname.replace(/^\/api\/v3/, "");
          await options.holdAnswer?.(req.method ?? "GET", path);
          const out = handle(
            req.method ?? "GET",
            req.url ?? "/",
            text ? JSON.parse(text) : {},
            req.headers.authorization,
          );
          if (out.drop) {
            req.socket.destroy();
            return;
          }
          const headers = { "content-type": "application/json", ...out.headers };
          res.writeHead(out.status, headers);
          // A log is text, as GitHub sends it; everything else is JSON.
          const raw = typeof out.body === "string" && !headers["content-type"].includes("json");
          res.end(raw ? out.body : JSON.stringify(out.body));
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
