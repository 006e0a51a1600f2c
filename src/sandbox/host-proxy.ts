import { lookup } from "node:dns/promises";
import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect, isIP, type Socket } from "node:net";
import { bareHost, nonPublicKind } from "./address-kind.js";
import { type HostRule, hostAllowed, namesLocalTarget } from "./network.js";
import { type OutboundProxy, proxyAuthorization, proxyFor } from "./trust/proxy-settings.js";
import { caWithRoots, tunnelThroughProxy } from "./trust/upstream-proxy.js";

/**
 * The only way out of a sandbox whose network is limited to hosts: an HTTP
 * proxy on a Unix socket (bound into the sandbox, which has no network of
 * its own) that tunnels CONNECT and forwards plain HTTP to allowed hosts
 * only. A name that resolves to this machine (loopback, link-local, cloud
 * metadata) is refused unless the rule names such a target itself, so an
 * allowed name cannot be pointed at the server's own ports. When the host
 * itself goes out through a proxy (a company network), allowed requests go
 * through that proxy too, with its credentials, which the sandbox never
 * sees; a name the host cannot resolve is then left to that proxy.
 */

export interface HostProxy {
  close(): Promise<void>;
}

/** Name resolution, passed in so tests can make a name point at this machine. */
export type Resolve = (name: string) => Promise<string[]>;

const systemResolve: Resolve = async (name) =>
  (await lookup(name, { all: true }).catch(() => [])).map((a) => a.address);

export interface HostProxyOptions {
  /** Any host with a public address too, beside the rules (NetworkPolicy's `anyPublic`). */
  anyPublic?: boolean | undefined;
  resolveName?: Resolve | undefined;
  /** The host's own proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), credentials included. */
  upstream?: OutboundProxy | undefined;
}

export async function startHostProxy(
  socketPath: string,
  rules: readonly HostRule[],
  options: HostProxyOptions = {},
): Promise<HostProxy> {
  const resolveName = options.resolveName ?? systemResolve;
  const anyPublic = options.anyPublic === true;
  const upstream = options.upstream;
  const check = (host: string, port: number, scheme: "https" | "http") => {
    const proxied = proxyFor(upstream, scheme, host, port);
    return checkTarget(
      { rules, anyPublic, proxied: proxied !== undefined },
      host,
      port,
      resolveName,
    ).then(
      (target): Routed => (target.ok ? { ...target, via: proxied, ca: upstream?.ca } : target),
    );
  };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void forwardPlain(req, check).then(
      (upstream) => {
        if (typeof upstream === "string") {
          res.writeHead(403, { "content-type": "text/plain" }).end(`${upstream}\n`);
          return;
        }
        upstream.on("response", (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on("error", (error) => res.destroy(error));
        req.pipe(upstream);
      },
      () => res.writeHead(502).end(),
    );
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    void tunnel(req.url ?? "", check, client, head);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Where to go: the address to dial, and the host's proxy to go through, if any. */
type Routed =
  | (Extract<Target, { ok: true }> & { via: URL | undefined; ca?: string[] | undefined })
  | Extract<Target, { ok: false }>;
type Check = (host: string, port: number, scheme: "https" | "http") => Promise<Routed>;

async function tunnel(
  authority: string,
  check: Check,
  client: Socket,
  head: Buffer,
): Promise<void> {
  const [host = "", portText = "443"] = splitHostPort(authority);
  const target = await check(host, Number(portText), "https");
  if (!target.ok) {
    client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${target.reason}\n`);
    return;
  }
  if (target.via) {
    await tunnelThroughProxy(target.via, target.address, Number(portText), target.ca).then(
      (upstream) => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client).pipe(upstream);
        upstream.on("error", () => client.destroy());
        client.on("close", () => upstream.destroy());
      },
      (error: Error) => {
        const reason = `patchwright sandbox: ${error.message}`;
        client.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\n\r\n${reason}\n`);
      },
    );
    return;
  }
  const upstream = connect(Number(portText), target.address, () => {
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client).pipe(upstream);
  });
  upstream.on("error", () => client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
  client.on("close", () => upstream.destroy());
}

async function forwardPlain(req: IncomingMessage, check: Check) {
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    return "patchwright sandbox: only absolute http:// URLs go through this proxy";
  }
  if (url.protocol !== "http:") return "patchwright sandbox: only http:// is forwarded; use https";
  const port = Number(url.port || 80);
  const target = await check(url.hostname, port, "http");
  if (!target.ok) return target.reason;
  if (target.via) {
    // Sent on as a proxy request, absolute URL and all, with the host's credentials.
    const auth = proxyAuthorization(target.via);
    const secure = target.via.protocol === "https:";
    return (secure ? httpsRequest : httpRequest)({
      host: bareHost(target.via.hostname),
      port: Number(target.via.port || (secure ? 443 : 80)),
      ...(secure ? { ca: caWithRoots(target.ca) } : {}),
      method: req.method,
      path: url.href,
      headers: { ...req.headers, host: url.host, ...(auth ? { "proxy-authorization": auth } : {}) },
      setHost: false,
    });
  }
  return httpRequest({
    host: target.address,
    port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers: { ...req.headers, host: url.host },
    setHost: false,
  });
}

export type Target = { ok: true; address: string } | { ok: false; reason: string };

/**
 * The address to dial, or why not. A host a rule names may have any
 * address but this machine's (unless the rule names such a target itself);
 * any other host, when public hosts are allowed, only a public one.
 */
export async function checkTarget(
  policy: { rules: readonly HostRule[]; anyPublic: boolean; proxied?: boolean },
  host: string,
  port: number,
  resolveName: Resolve,
): Promise<Target> {
  const { rules } = policy;
  const name = bareHost(host);
  const validPort = Number.isInteger(port) && port > 0 && port <= 65_535;
  const named = validPort && name !== "" && hostAllowed(rules, name, port);
  if (!named && !(policy.anyPublic && validPort && name !== "")) {
    const reason = `patchwright sandbox: ${host}:${port} is not in this repository's network allow-list (\`network:\` in .github/patchwright.yml)`;
    return { ok: false, reason };
  }
  const explicit = rules.some((rule) => namesLocalTarget(rule) && hostAllowed([rule], name, port));
  const addresses = isIP(name) ? [name] : await resolveName(name);
  const usable = addresses.filter(
    (address) =>
      explicit || (!isLocalAddress(address) && (named || nonPublicKind(address) === undefined)),
  );
  // Through the host's proxy the name goes on as it is (the proxy resolves
  // it), once the addresses this machine sees for it, if any, are allowed.
  if (policy.proxied && (usable.length > 0 || addresses.length === 0)) {
    return { ok: true, address: name };
  }
  if (usable[0]) return { ok: true, address: usable[0] };
  const reason =
    addresses.length === 0
      ? `patchwright sandbox: ${name} did not resolve`
      : named
        ? `patchwright sandbox: ${name} resolves to an address of this machine, which the sandbox does not reach`
        : `patchwright sandbox: ${name} resolves to an address of this machine or of a private network, which the sandbox reaches only when the repository's config names it`;
  return { ok: false, reason };
}

function splitHostPort(target: string): [string, string] {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(target);
  return match ? [match[1] ?? "", match[2] ?? ""] : [target, "443"];
}

/** Loopback, unspecified, link-local (cloud metadata lives there) and the metadata addresses outside it. */
function isLocalAddress(address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  if (isIP(v4) === 4) {
    return /^(127\.|0\.|169\.254\.)/.test(v4) || v4 === "100.100.100.200" || v4 === "168.63.129.16";
  }
  const v6 = address.toLowerCase();
  return v6 === "::1" || v6 === "::" || /^fe[89ab]/.test(v6) || v6.startsWith("fd00:ec2::");
}
