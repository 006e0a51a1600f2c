import { request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP, type Socket } from "node:net";
import { Readable } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { bareHost, type KindOf, nonPublicKind } from "../../sandbox/address-kind.js";
import { type OutboundProxy, proxyFor } from "../../sandbox/trust/proxy-settings.js";
import { caWithRoots, tunnelThroughProxy } from "../../sandbox/trust/upstream-proxy.js";
import { checkHost, guardedLookup, type Resolve, refusedConnection } from "./address-guard.js";

/** Statuses whose response has no body, which `new Response` refuses one for. */
const NO_BODY = new Set([204, 205, 304]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The `fetch` a repository's HTTP MCP server is reached with. Global fetch
 * resolves names on its own, so the address it connects to could differ from
 * the one checked; this one is node:http(s) with `guardedLookup`, so each
 * connection goes to an address checked for it. A redirect is an error, not
 * followed: it could point anywhere, and the SDK would follow one within
 * the origin by default.
 *
 * On a company network the host reaches the internet through its proxy
 * (`proxy`, from HTTPS_PROXY; NO_PROXY hosts go direct): an https server is
 * then reached through a CONNECT tunnel, with the proxy's credentials, and
 * TLS to the server inside it. The proxy resolves the name; it is checked
 * here first all the same, and refused when this machine resolves it to its
 * own network. A name this machine cannot resolve is left to the proxy, as
 * the sandboxes' own proxy does (sandbox/host-proxy.ts).
 */
export function guardedFetch(
  resolve: Resolve,
  kindOf: KindOf = nonPublicKind,
  proxy?: OutboundProxy,
): FetchLike {
  const lookup = guardedLookup(resolve, kindOf);
  return async (input, init = {}) => {
    const url = new URL(input);
    const body = await bodyBytes(init.body);
    const headers = new Headers(init.headers);
    if (body !== undefined) headers.set("content-length", String(body.byteLength));
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const via = proxyForUrl(url, proxy);
    const tunnel = via
      ? await tunnelTo(url, via, {
          resolve,
          kindOf,
          ca: proxy?.ca,
          signal: init.signal ?? undefined,
        })
      : undefined;
    const res = await new Promise<IncomingMessage>((resolveResponse, reject) => {
      const req = send(url, {
        method: init.method ?? "GET",
        headers: Object.fromEntries(headers),
        // An agent whose one connection is the tunnel: a wrapper of node:http
        // (an APM agent, a test's interceptor) connects through the request's
        // agent, where it would drop a `createConnection` option.
        ...(tunnel ? { agent: tunnelAgent(tunnel) } : { lookup }),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      req.on("response", resolveResponse);
      req.on("error", (error) => reject(init.signal?.aborted ? init.signal.reason : error));
      req.end(body);
    });
    const status = res.statusCode ?? 502;
    if (REDIRECTS.has(status)) {
      res.destroy();
      throw new Error(
        `${url.origin} answered with a redirect to ${res.headers.location ?? "(no location)"}; a repository's MCP server's redirects are not followed`,
      );
    }
    const responseHeaders = new Headers();
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
      responseHeaders.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
    }
    const empty = NO_BODY.has(status) || init.method === "HEAD";
    if (empty) res.resume();
    return new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
      status,
      statusText: res.statusMessage ?? "",
      headers: responseHeaders,
    });
  };
}

/** The host's proxy for an https URL (a repository's server is https), unless NO_PROXY names its host. */
export function proxyForUrl(url: URL, proxy: OutboundProxy | undefined): URL | undefined {
  if (url.protocol !== "https:") return undefined;
  return proxyFor(proxy, "https", url.hostname, Number(url.port || 443));
}

function tunnelAgent(tunnel: Socket): HttpsAgent {
  const agent = new HttpsAgent({ keepAlive: false });
  agent.createConnection = () => tunnel;
  return agent;
}

/** TLS to the server, through a CONNECT tunnel on the host's proxy, once its name is checked. */
async function tunnelTo(
  url: URL,
  via: URL,
  options: {
    resolve: Resolve;
    kindOf: KindOf;
    ca: readonly string[] | undefined;
    /** The request's: a proxy that never answers the CONNECT does not hold the call past it. */
    signal: AbortSignal | undefined;
  },
): Promise<Socket> {
  const { ca, signal } = options;
  const host = bareHost(url.hostname);
  const checked = await checkHost(host, options.resolve, options.kindOf);
  if (checked.refused !== undefined && !checked.unresolved) {
    throw refusedConnection(checked.refused);
  }
  const raw = await tunnelThroughProxy(via, host, Number(url.port || 443), ca, signal);
  // An inspecting proxy signs for the server with the CA the host trusts for the proxy.
  return tlsConnect({
    socket: raw,
    ...(isIP(host) ? {} : { servername: host }),
    ALPNProtocols: ["http/1.1"],
    ca: caWithRoots(ca),
  });
}

/** The MCP SDK sends JSON as a string; anything else a fetch body may be is read the same way. */
async function bodyBytes(body: RequestInit["body"]): Promise<Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return new TextEncoder().encode(body);
  return new Uint8Array(await new Response(body).arrayBuffer());
}
