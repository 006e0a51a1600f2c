import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { runInGroup } from "../../src/spawner.js";

/**
 * A loopback smart-HTTP git server: node:http in front of `git http-backend`
 * (CGI), demanding Basic auth with a token, the way GitHub does for private
 * repositories. Records every request and whether it carried the token.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  /** The request carried the expected token. */
  authorized: boolean;
  status: number;
}

export interface GitHttpServer {
  /** http://127.0.0.1:<port>/<name>.git for a bare repo `<name>.git` under the project root. */
  url(repoName: string): string;
  requests: RecordedRequest[];
  /**
   * The next `count` requests (for `service` only, when given) fail the way
   * a server that is down or restarting fails: a 503, or the connection
   * closed without an answer (recorded with status 0), or hangs: the
   * request taken and never answered ("stall", status 0).
   */
  failNext(count: number, options?: FailOptions): void;
  close(): Promise<void>;
}

export interface FailOptions {
  how?: "503" | "close" | "stall";
  /** Fetches are git-upload-pack, pushes git-receive-pack. */
  service?: "git-upload-pack" | "git-receive-pack";
}

export interface GitHttpServerOptions {
  /** Directory holding the bare repositories. */
  projectRoot: string;
  /** The token every request must carry... */
  token: string;
  /** ...or which tokens it takes at the moment (one that was renewed, one that ran out). */
  accepts?: (token: string) => boolean;
  /** Environment for the CGI process (PATH, isolated git config). */
  env: Record<string, string>;
  /** Serve partial-clone filters (default true); false acts like a server that refuses them. */
  allowFilter?: boolean;
}

export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const requests: RecordedRequest[] = [];
  let failing = 0;
  let failure: FailOptions = {};
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.search.slice(1),
      authorized: hasToken(req, options.accepts ?? ((token) => token === options.token)),
      status: 0,
    };
    requests.push(record);
    const service = failure.service;
    const hit = !service || url.pathname.endsWith(service) || url.search.includes(service);
    if (failing > 0 && hit) {
      failing -= 1;
      if (failure.how === "close") {
        req.socket.destroy();
        return;
      }
      // Taken and never answered, as a server that hangs (until close()).
      if (failure.how === "stall") return;
      record.status = 503;
      res.writeHead(503).end("service unavailable\n");
      return;
    }
    if (!record.authorized) {
      record.status = 401;
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end("token required\n");
      return;
    }
    runBackend(req, res, url, options, record);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}.git`,
    requests,
    failNext(count, options = {}) {
      failing = count;
      failure = options;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function hasToken(req: IncomingMessage, accepts: (token: string) => boolean): boolean {
  const header = req.headers.authorization ?? "";
  if (!header.startsWith("Basic ")) return false;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  return accepts(decoded.slice(decoded.indexOf(":") + 1));
}

function runBackend(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  options: GitHttpServerOptions,
  record: RecordedRequest,
): void {
  const env: Record<string, string> = {
    ...options.env,
    GIT_PROJECT_ROOT: options.projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    REQUEST_METHOD: req.method ?? "GET",
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    REMOTE_USER: "x-access-token",
    REMOTE_ADDR: "127.0.0.1",
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: "http.receivepack",
    GIT_CONFIG_VALUE_0: "true",
    GIT_CONFIG_KEY_1: "uploadpack.allowFilter",
    GIT_CONFIG_VALUE_1: String(options.allowFilter ?? true),
  };
  const encoding = req.headers["content-encoding"];
  if (encoding) env.HTTP_CONTENT_ENCODING = encoding;
  const protocol = req.headers["git-protocol"];
  if (typeof protocol === "string") env.GIT_PROTOCOL = protocol;

  // Through the spawner's helper (src/spawner.ts), as the product's own git:
  // a CGI started here would be a fork of the test worker, a few hundred MB.
  // The request is read whole first and the answer sent whole: test
  // repositories are small, and git sends each request before it reads.
  const body: Buffer[] = [];
  req.on("data", (chunk: Buffer) => body.push(chunk));
  req.on("end", () => {
    runInGroup("git", ["http-backend"], {
      cwd: options.projectRoot,
      env,
      input: Buffer.concat(body),
    }).done.then(
      ({ stdout }) => {
        const end = stdout.indexOf("\r\n\r\n");
        const head = end === -1 ? "" : stdout.subarray(0, end).toString("latin1");
        let status = 200;
        for (const line of head.split("\r\n").filter(Boolean)) {
          const colon = line.indexOf(":");
          const name = line.slice(0, colon).trim();
          const value = line.slice(colon + 1).trim();
          if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
          else res.setHeader(name, value);
        }
        record.status = status;
        res.writeHead(status).end(end === -1 ? stdout : stdout.subarray(end + 4));
      },
      () => {
        record.status = 500;
        res.writeHead(500).end();
      },
    );
  });
}
