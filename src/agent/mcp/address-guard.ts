import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Which addresses a repository's HTTP MCP server may have. The request is
 * made by the machine running patchwright, so whoever writes a repository's
 * config must not be able to point it at that machine's own network: cloud
 * metadata (169.254.169.254), Redis, internal services. Names are resolved
 * and every address checked, since a public name can resolve to 10.0.0.5.
 */

/** Every address a name resolves to, as `dns.lookup(name, { all: true })` gives them. */
export type Resolve = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolve: Resolve = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

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

const LISTS = new Map<string, BlockList>();
for (const [kind, net, prefix] of RANGES) {
  const list = LISTS.get(kind) ?? new BlockList();
  list.addSubnet(net, prefix, isIP(net) === 6 ? "ipv6" : "ipv4");
  LISTS.set(kind, list);
}

/** Says what non-public network an address is on, or undefined for a public one. */
export type KindOf = (address: string) => string | undefined;

/**
 * The kind of network an address belongs to when it is not a public one
 * ("loopback", "private", "link-local", ...), or undefined. IPv4-mapped IPv6
 * (::ffff:10.0.0.1, ::ffff:a00:1) counts as its IPv4 address, and so does
 * the IPv4 address inside a 6to4 one (2002:a00:1::).
 */
export function nonPublicKind(address: string): string | undefined {
  const ip = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(ip);
  if (family === 0) return "unparsable";
  const type = family === 6 ? "ipv6" : "ipv4";
  for (const [kind, list] of LISTS) if (list.check(ip, type)) return kind;
  if (family === 6) {
    const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/i.exec(ip);
    if (sixToFour?.[1] && sixToFour[2]) {
      const [hi, lo] = [Number.parseInt(sixToFour[1], 16), Number.parseInt(sixToFour[2], 16)];
      return nonPublicKind(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
    }
  }
  return undefined;
}

/** Why `hostname` is refused, or undefined with the addresses it resolved to (all public). */
export async function checkHost(
  hostname: string,
  resolve: Resolve,
  kindOf: KindOf = nonPublicKind,
): Promise<
  | { refused: string; addresses?: never }
  | { refused?: never; addresses: Array<{ address: string; family: number }> }
> {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal")) {
    return { refused: `${host} is on the host's own network` };
  }
  const literal = isIP(host);
  let addresses: Array<{ address: string; family: number }>;
  if (literal) {
    addresses = [{ address: host, family: literal }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      const code = (error as { code?: string }).code;
      return { refused: `${host} does not resolve${code ? ` (${code})` : ""}` };
    }
    if (addresses.length === 0) return { refused: `${host} does not resolve` };
  }
  for (const { address } of addresses) {
    const kind = kindOf(address);
    if (kind) {
      const a = /^(?:[aeio]|un(?!i))/.test(kind) ? "an" : "a";
      return {
        refused:
          address === host
            ? `${host} is ${a} ${kind} address`
            : `${host} resolves to ${address}, ${a} ${kind} address`,
      };
    }
  }
  return { addresses };
}

/**
 * A `lookup` for node:net that resolves with `resolve` and hands the socket
 * only addresses it has just checked: the check and the connection use the
 * same answer, so a name that re-resolves to 127.0.0.1 after the job's first
 * check (DNS rebinding) is refused at connect time rather than reached.
 */
export function guardedLookup(resolve: Resolve, kindOf: KindOf = nonPublicKind): LookupFunction {
  return (hostname, options, callback) => {
    checkHost(hostname, resolve, kindOf).then(
      (checked) => {
        if (checked.refused !== undefined) {
          const error: NodeJS.ErrnoException = new Error(
            `refused to connect: ${checked.refused}; a repository's MCP server must be on a public address`,
          );
          error.code = "EADDRNOTPUBLIC";
          callback(error, "", 0);
          return;
        }
        const wanted =
          options.family === 4 || options.family === 6
            ? checked.addresses.filter((a) => a.family === options.family)
            : checked.addresses;
        if (options.all) {
          (callback as unknown as (e: null, a: typeof wanted) => void)(null, wanted);
          return;
        }
        const [first] = wanted;
        if (!first) {
          const error: NodeJS.ErrnoException = new Error(
            `${hostname} has no IPv${options.family} address`,
          );
          error.code = "ENOTFOUND";
          callback(error, "", 0);
          return;
        }
        callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, "", 0),
    );
  };
}
