import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { bareHost, type KindOf, nonPublicKind } from "../../sandbox/address-kind.js";

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

/**
 * Why `hostname` is refused, or undefined with the addresses it resolved to
 * (all public). `unresolved` marks a refusal only because this machine could
 * not resolve the name, which a host's proxy may still reach.
 */
export async function checkHost(
  hostname: string,
  resolve: Resolve,
  kindOf: KindOf = nonPublicKind,
): Promise<
  | { refused: string; unresolved?: true; addresses?: never }
  | { refused?: never; addresses: Array<{ address: string; family: number }> }
> {
  const host = bareHost(hostname).toLowerCase();
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
      return { refused: `${host} does not resolve${code ? ` (${code})` : ""}`, unresolved: true };
    }
    if (addresses.length === 0) return { refused: `${host} does not resolve`, unresolved: true };
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

/** The error a connection to a refused host fails with. */
export function refusedConnection(refused: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(
    `refused to connect: ${refused}; a repository's MCP server must be on a public address`,
  );
  error.code = "EADDRNOTPUBLIC";
  return error;
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
          callback(refusedConnection(checked.refused), "", 0);
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
