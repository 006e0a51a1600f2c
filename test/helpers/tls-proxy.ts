import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { TLSSocket } from "node:tls";
import { promisify } from "node:util";
import { ProxyAgent, fetch as undiciFetch } from "undici";

/**
 * A company network on loopback: a throwaway certificate authority (made
 * with the openssl command line, as an IT department would) and an HTTP
 * proxy that inspects HTTPS. Every CONNECT is answered with a certificate
 * for the asked host signed by that CA, the request is read in the clear and
 * sent on to the backend its host maps to. A client that does not trust the
 * CA fails exactly as it does behind such a proxy
 * (SELF_SIGNED_CERT_IN_CHAIN, "unable to get local issuer certificate").
 * Names need not resolve: the client asks the proxy for them, so a test can
 * use `registry.corp.test` for a registry on 127.0.0.1.
 */

const run = promisify(execFile);

export interface ThrowawayCa {
  /** The CA certificate (PEM), the file a host would trust. */
  certPath: string;
  /** A certificate and key for these names (DNS names or IP addresses), signed by the CA. */
  issue(names: string[]): Promise<{ cert: string; key: string }>;
}

export async function makeThrowawayCa(dir: string): Promise<ThrowawayCa> {
  const caKey = join(dir, "ca.key");
  const certPath = join(dir, "ca.pem");
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    caKey,
    "-out",
    certPath,
    "-days",
    "2",
    "-subj",
    "/CN=patchwright test inspection CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  let serial = 0;
  return {
    certPath,
    async issue(names) {
      const base = join(dir, `leaf-${++serial}`);
      const alt = names.map((name) => (/^[\d.]+$/.test(name) ? `IP:${name}` : `DNS:${name}`));
      await writeFile(
        `${base}.ext`,
        `subjectAltName=${alt.join(",")}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
      );
      await run("openssl", [
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        `${base}.key`,
        "-out",
        `${base}.csr`,
        "-subj",
        `/CN=${names[0]}`,
      ]);
      await run("openssl", [
        "x509",
        "-req",
        "-in",
        `${base}.csr`,
        "-CA",
        certPath,
        "-CAkey",
        caKey,
        "-set_serial",
        String(1000 + serial),
        "-days",
        "2",
        "-out",
        `${base}.pem`,
        "-extfile",
        `${base}.ext`,
      ]);
      return {
        cert: await readFile(`${base}.pem`, "utf8"),
        key: await readFile(`${base}.key`, "utf8"),
      };
    },
  };
}

export interface InspectingProxy {
  /** `http://127.0.0.1:<port>` (`https://` when secure; add a user and password yourself when `credentials` is set). */
  url: string;
  /** Every CONNECT target and absolute URL asked for, in order. */
  asked: string[];
  /** Requests refused for missing or wrong proxy credentials. */
  refused: number;
  /** When secure: the name each client's TLS hello asked for (SNI), false for none. */
  servernames: Array<string | false>;
  close(): Promise<void>;
}

export interface InspectingProxyOptions {
  ca: ThrowawayCa;
  /** `host:port` the client asks for -> the plain-HTTP backend's base URL. */
  routes: Record<string, string>;
  /** When set, requests without this user and password get 407. */
  credentials?: { user: string; password: string };
  /** The proxy itself is reached over TLS (`https://127.0.0.1:<port>`), with a certificate from the CA. */
  secure?: boolean;
}

export async function startInspectingProxy(
  options: InspectingProxyOptions,
): Promise<InspectingProxy> {
  const hosts = [...new Set(Object.keys(options.routes).map((route) => splitHost(route)))];
  const leaf = await options.ca.issue(hosts);
  const asked: string[] = [];
  let refused = 0;
  const expected = options.credentials
    ? `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString("base64")}`
    : undefined;
  const authorized = (req: IncomingMessage) =>
    expected === undefined || req.headers["proxy-authorization"] === expected;

  // What the client sends inside the tunnel, in the clear, is served here.
  const inner = createServer((req, res) => {
    const authority = (req.socket as TLSSocket & { authority?: string }).authority ?? "";
    forward(options.routes[authority], req, res, "https");
  });
  const sockets = new Set<Socket>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    asked.push(req.url ?? "");
    if (!authorized(req)) {
      refused++;
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="corp"' }).end();
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end();
      return;
    }
    forward(options.routes[url.host] ?? options.routes[`${url.hostname}:80`], req, res, "http");
  };
  const proxy: Server = options.secure
    ? createHttpsServer(await options.ca.issue(["127.0.0.1", "localhost"]), handle)
    : createServer(handle);
  const servernames: Array<string | false> = [];
  proxy.on("secureConnection", (socket: TLSSocket) => servernames.push(socket.servername ?? false));
  proxy.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  proxy.on("connect", (req: IncomingMessage, client: Socket) => {
    const authority = req.url ?? "";
    asked.push(authority);
    client.on("error", () => client.destroy());
    if (!authorized(req)) {
      refused++;
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="corp"\r\n\r\n',
      );
      return;
    }
    if (!options.routes[authority]) {
      client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
      return;
    }
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n", () => {
      const tls = new TLSSocket(client, { isServer: true, cert: leaf.cert, key: leaf.key });
      Object.assign(tls, { authority });
      tls.on("error", () => client.destroy());
      inner.emit("connection", tls);
    });
  });
  await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `${options.secure ? "https" : "http"}://127.0.0.1:${port}`,
    asked,
    servernames,
    get refused() {
      return refused;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      inner.closeAllConnections();
      await new Promise<void>((done) => proxy.close(() => done()));
    },
  };
}

function forward(
  backend: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  proto: "http" | "https",
): void {
  if (!backend) {
    res.writeHead(502).end();
    return;
  }
  const target = new URL(backend);
  const path = req.url?.startsWith("http")
    ? new URL(req.url).pathname + new URL(req.url).search
    : req.url;
  const upstream = httpRequest(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path,
      // The backend builds its links (tarball URLs) from these, as behind any TLS front.
      headers: { ...req.headers, "x-forwarded-proto": proto },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
}

function splitHost(authority: string): string {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(authority);
  return match?.[1] ?? authority;
}

/**
 * A fetch whose requests go through `proxyUrl` (undici's ProxyAgent, as the
 * service's fetch-proxy.ts sends them behind HTTPS_PROXY), for a client that
 * takes its fetch.
 */
export function fetchThrough(proxyUrl: string): { fetch: typeof fetch; close(): Promise<void> } {
  const dispatcher = new ProxyAgent(proxyUrl);
  return {
    fetch: ((url: string, init?: RequestInit) =>
      undiciFetch(url, { ...init, dispatcher } as never)) as unknown as typeof fetch,
    close: () => dispatcher.close(),
  };
}
