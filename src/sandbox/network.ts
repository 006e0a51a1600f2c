import { isIP } from "node:net";
import * as z from "../zod.js";
import { bareHost } from "./address-kind.js";

/**
 * What the network looks like from inside the sandbox: nothing (the
 * default for the agent's commands), the host's network, or only named
 * hosts, reached through an allow-list proxy (see host-proxy.ts). With
 * `anyPublic` the proxy takes any host on the internet too, but never an
 * address of this machine or of a private network (the server's Redis, a
 * cloud's metadata service) unless a rule names it: the internet an install
 * needs without the server's neighbourhood.
 */
export type NetworkPolicy =
  | { kind: "off" }
  | { kind: "on" }
  | { kind: "hosts"; hosts: readonly HostRule[]; anyPublic?: boolean };

/** In a host list: any public host (`public` is the list `["*"]`). */
export const ANY_PUBLIC_HOST = "*";

/** `example.com`, `*.example.com` (any subdomain), optionally `:port`. */
export interface HostRule {
  host: string;
  wildcard: boolean;
  port?: number | undefined;
}

const HOST_PATTERN = /^(\*\.)?([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(:(\d{1,5}))?$/i;

const hostPattern = z.string({ error: "expected a host name such as registry.npmjs.org" }).check(
  z.trim(),
  z.toLowerCase(),
  z.refine((text) => text === ANY_PUBLIC_HOST || HOST_PATTERN.test(text), {
    error:
      'expected a host such as "registry.npmjs.org", "*.github.com", "localhost:4873", or "*" for any public host',
  }),
);

/** `network:` and `setup_network:` in the config: on/off (or true/false), public, or a list of hosts. */
export const networkSettingSchema = z.union(
  [
    z.boolean(),
    z.enum(["on", "off", "public"]),
    z.array(hostPattern, { error: "expected a list of host names" }),
  ],
  {
    error: 'expected "on", "off", "public", or a list of host names such as ["registry.npmjs.org"]',
  },
);

export type NetworkSetting = z.output<typeof networkSettingSchema>;

export function networkPolicy(setting: NetworkSetting): NetworkPolicy {
  if (setting === true || setting === "on") return { kind: "on" };
  if (setting === false || setting === "off") return { kind: "off" };
  const list = setting === "public" ? [ANY_PUBLIC_HOST] : setting;
  if (list.length === 0) return { kind: "off" };
  const named = list.filter((entry) => entry !== ANY_PUBLIC_HOST);
  return {
    kind: "hosts",
    hosts: named.map(parseHostRule),
    ...(named.length < list.length ? { anyPublic: true } : {}),
  };
}

export function parseHostRule(pattern: string): HostRule {
  const match = HOST_PATTERN.exec(pattern.trim().toLowerCase());
  if (!match?.[2]) throw new Error(`not a host pattern: ${pattern}`);
  const port = match[5] ? Number(match[5]) : undefined;
  return { host: bareHost(match[2]), wildcard: Boolean(match[1]), port };
}

/** Whether a request to host:port is allowed by any rule. */
export function hostAllowed(rules: readonly HostRule[], host: string, port: number): boolean {
  const name = bareHost(host.toLowerCase()).replace(/\.$/, "");
  return rules.some((rule) => {
    if (rule.port !== undefined && rule.port !== port) return false;
    if (rule.wildcard) return name.endsWith(`.${rule.host}`);
    return name === rule.host;
  });
}

/**
 * A rule that names an address the host itself answers on (loopback, an IP
 * literal): allowing it is an explicit choice, so a name that resolves there
 * is not refused by the proxy's address check.
 */
export function namesLocalTarget(rule: HostRule): boolean {
  return rule.host === "localhost" || isIP(rule.host) !== 0;
}

/** One line for logs and reports. */
export function describeNetwork(policy: NetworkPolicy): string {
  if (policy.kind !== "hosts") return policy.kind;
  return [
    ...(policy.anyPublic ? ["public hosts"] : []),
    ...policy.hosts.map((r) => `${r.wildcard ? "*." : ""}${r.host}${r.port ? `:${r.port}` : ""}`),
  ].join(", ");
}
