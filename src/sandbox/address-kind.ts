import { BlockList, isIP } from "node:net";

/**
 * Which kind of network an address is on when it is not the public
 * internet: what a repository's config may never make the server reach (a
 * repository's HTTP MCP server, agent/mcp/address-guard.ts) and what the
 * sandbox's public network refuses unless a rule names it (host-proxy.ts).
 */

const RANGES: ReadonlyArray<readonly [kind: string, net: string, prefix: number]> = [
  ["unspecified", "0.0.0.0", 8],
  ["loopback", "127.0.0.0", 8],
  ["private", "10.0.0.0", 8],
  ["private", "172.16.0.0", 12],
  ["private", "192.168.0.0", 16],
  // Carrier-grade NAT: a provider's internal network, never a public server.
  ["private", "100.64.0.0", 10],
  ["link-local", "169.254.0.0", 16],
  ["reserved", "192.0.0.0", 24],
  ["reserved", "192.0.2.0", 24],
  ["reserved", "198.18.0.0", 15],
  ["reserved", "198.51.100.0", 24],
  ["reserved", "203.0.113.0", 24],
  ["multicast", "224.0.0.0", 4],
  ["reserved", "240.0.0.0", 4],
  ["unspecified", "::", 128],
  ["loopback", "::1", 128],
  // IPv4-compatible (deprecated) addresses: ::a.b.c.d.
  ["reserved", "::", 96],
  ["unique-local", "fc00::", 7],
  ["link-local", "fe80::", 10],
  // Site-local, deprecated but still routed inside some networks.
  ["private", "fec0::", 10],
  ["multicast", "ff00::", 8],
  ["reserved", "100::", 64],
  ["reserved", "2001:db8::", 32],
  // NAT64 for a local network's own prefix.
  ["private", "64:ff9b:1::", 48],
];

/**
 * Built on first use, not when the module loads: the first `isIP` of an
 * IPv6 address compiles Node's IPv6 pattern (about 7 ms), which every
 * Action run paid while loading, on the way to its first model request.
 */
let lists: Map<string, BlockList> | undefined;

function rangeLists(): Map<string, BlockList> {
  if (lists) return lists;
  lists = new Map();
  for (const [kind, net, prefix] of RANGES) {
    const list = lists.get(kind) ?? new BlockList();
    list.addSubnet(net, prefix, isIP(net) === 6 ? "ipv6" : "ipv4");
    lists.set(kind, list);
  }
  return lists;
}

/** Says what non-public network an address is on, or undefined for a public one. */
export type KindOf = (address: string) => string | undefined;

/** A host as a socket and these checks want it: a URL's IPv6 address keeps its brackets (`[::1]`). */
export function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, "$1");
}

/**
 * The kind of network an address belongs to when it is not a public one
 * ("loopback", "private", "link-local", ...), or undefined. IPv4-mapped IPv6
 * (::ffff:10.0.0.1, ::ffff:a00:1) counts as its IPv4 address, and so does
 * the IPv4 address inside a 6to4 one (2002:a00:1::).
 */
export function nonPublicKind(address: string): string | undefined {
  const ip = bareHost(address).replace(/%.*$/, "");
  const family = isIP(ip);
  if (family === 0) return "unparsable";
  const type = family === 6 ? "ipv6" : "ipv4";
  for (const [kind, list] of rangeLists()) if (list.check(ip, type)) return kind;
  if (family === 6) {
    const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/i.exec(ip);
    if (sixToFour?.[1] && sixToFour[2]) {
      const [hi, lo] = [Number.parseInt(sixToFour[1], 16), Number.parseInt(sixToFour[2], 16)];
      return nonPublicKind(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
    }
  }
  return undefined;
}
