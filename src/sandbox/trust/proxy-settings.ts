import { BlockList, isIP } from "node:net";
import { bareHost } from "../address-kind.js";
/**
 * The host's outbound proxy, as curl, git, npm and most tools read it from
 * the environment: `HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` (either case,
 * lowercase first, as curl does) and `NO_PROXY`. A proxy URL that carries a
 * user or password is a credential: the host's own proxy (host-proxy.ts)
 * may use it, a sandbox never sees it.
 */

export interface OutboundProxy {
  /** For https:// targets (and CONNECT tunnels). */
  https?: URL | undefined;
  /** For plain http:// targets. */
  http?: URL | undefined;
  /** The NO_PROXY list, as written. */
  noProxy: string;
  /** Certificates (PEM) to trust beside node's own when the proxy itself is reached over https. */
  ca?: string[] | undefined;
}

const NAMES = {
  https: ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"],
  http: ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"],
  noProxy: ["no_proxy", "NO_PROXY"],
} as const;

/** Every variable a tool may read a proxy from; a sandbox gets them only as this module says. */
export const PROXY_VARIABLES = [...new Set([...NAMES.https, ...NAMES.http, ...NAMES.noProxy])];

export function outboundProxyFromEnv(
  env: Record<string, string | undefined>,
): OutboundProxy | undefined {
  const pick = (names: readonly string[]) =>
    names.map((name) => env[name]?.trim()).find((value) => Boolean(value));
  const https = parseProxyUrl(pick(NAMES.https));
  const http = parseProxyUrl(pick(NAMES.http));
  if (!https && !http) return undefined;
  return { https, http, noProxy: pick(NAMES.noProxy) ?? "" };
}

/** Never sent to the company's proxy, which cannot reach this machine's own services. */
const LOOPBACK = ["localhost", "127.0.0.1", "::1"];

/**
 * NO_PROXY for this process's own requests: the hosts either spelling names
 * (Node and git each read one), with loopback added.
 */
export function noProxyWithLoopback(env: Record<string, string | undefined>): string {
  const named = [env.no_proxy, env.NO_PROXY]
    .flatMap((list) => (list ?? "").split(","))
    .map((host) => host.trim())
    .filter(Boolean);
  return [...new Set([...named, ...LOOPBACK])].join(",");
}

/** `proxy.corp:3128` is read as http://, as curl and npm do. */
export function parseProxyUrl(value: string | undefined): URL | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

export function hasCredentials(url: URL): boolean {
  return url.username !== "" || url.password !== "";
}

/** `Basic …` for a proxy URL with a user, for Proxy-Authorization. */
export function proxyAuthorization(url: URL): string | undefined {
  if (!hasCredentials(url)) return undefined;
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return `Basic ${Buffer.from(pair).toString("base64")}`;
}

/** The host's proxy for a `scheme` request to host:port, unless NO_PROXY names the host. */
export function proxyFor(
  proxy: OutboundProxy | undefined,
  scheme: "https" | "http",
  host: string,
  port: number,
): URL | undefined {
  const via = proxy?.[scheme];
  return via && !bypassesProxy(proxy.noProxy, host, port) ? via : undefined;
}

/**
 * Whether NO_PROXY says to go to `host:port` directly: `*`, a name and its
 * subdomains (`corp.example`, `.corp.example`, `*.corp.example`), with an
 * optional `:port`, an exact address (`10.0.0.5`, `::1`, `[::1]:8080`), or
 * a range of addresses (`10.0.0.0/8`, `fd00::/8`) for a host given by
 * address, as curl reads it.
 */
export function bypassesProxy(noProxy: string, host: string, port: number): boolean {
  const name = bareHost(host.toLowerCase()).replace(/\.$/, "");
  const family = isIP(name);
  return noProxy
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((raw) => {
      const entry = raw.toLowerCase();
      if (entry === "*") return true;
      const range = /^\[?([\da-f:.]+)\]?\/(\d{1,3})$/.exec(entry);
      if (range) return family !== 0 && inRange(name, family, range[1] ?? "", Number(range[2]));
      const { pattern, entryPort } = splitEntry(entry);
      if (entryPort !== undefined && entryPort !== port) return false;
      if (pattern === "") return false;
      if (name === pattern) return true;
      // Subdomains are a name's; an address matches exactly or by range.
      return family === 0 && name.endsWith(`.${pattern}`);
    });
}

/** An entry's host (without a leading `.` or `*.`) and port: `[::1]:8080`, a bare IPv6 address, `name:port`. */
function splitEntry(entry: string): { pattern: string; entryPort?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    const [, address = "", entryPort] = bracketed;
    return { pattern: address, ...(entryPort ? { entryPort: Number(entryPort) } : {}) };
  }
  // An IPv6 address has colons of its own and no port.
  if (isIP(entry) === 6) return { pattern: entry };
  const [, hostPart = "", entryPort] = /^(.*?)(?::(\d+))?$/.exec(entry) ?? [];
  return {
    pattern: hostPart.replace(/^\*?\./, ""),
    ...(entryPort ? { entryPort: Number(entryPort) } : {}),
  };
}

function inRange(address: string, family: number, network: string, prefix: number): boolean {
  if (isIP(network) !== family) return false;
  const type = family === 4 ? "ipv4" : "ipv6";
  try {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return list.check(address, type);
  } catch {
    // A prefix too long for the family: no range, so no match.
    return false;
  }
}
