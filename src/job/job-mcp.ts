import { isIP } from "node:net";
import { type McpServersConfig, resolveMcpServers } from "../agent/mcp/config.js";
import type { SessionMcp } from "../agent/session.js";
import type { GitEnv } from "../git/git-client.js";
import { gitMetadataPaths } from "../git/git-metadata.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";

/**
 * A job's MCP servers, from the repository's `mcp_servers:`: stdio servers
 * start in a sandbox of the job's workspace (with the network their config
 * gives), HTTP servers are reached from the host. Since the server running
 * patchwright makes that request, a repository's config may not point it at
 * the host's own network: loopback, private and link-local addresses
 * (cloud metadata, Redis, internal services) are refused, as is plain http.
 */

export async function jobMcp(options: {
  servers: McpServersConfig;
  env: GitEnv;
  launcher: SandboxLauncher;
  dir: string;
}): Promise<SessionMcp> {
  const resolved = resolveMcpServers(options.servers, options.env, "repository");
  const servers = resolved.servers.filter((server) => {
    if (server.transport !== "http") return true;
    const refusal = refusedUrl(server.url);
    if (refusal) resolved.problems.push({ server: server.name, message: refusal });
    return refusal === undefined;
  });
  // The git metadata the job's own git trusts stays read-only, as in the agent's sandbox.
  const readOnly = await gitMetadataPaths(options.dir, options.env);
  return {
    servers,
    problems: resolved.problems,
    secrets: resolved.secrets,
    sandboxFor: (network) => options.launcher.open({ workspace: options.dir, readOnly, network }),
  };
}

/** Why a repository's HTTP server URL is not reached from the host, or undefined. */
export function refusedUrl(url: string): string | undefined {
  const parsed = new URL(url);
  if (parsed.protocol !== "https:") return `${url}: a repository's MCP server must use https`;
  const host = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal")) {
    return `${url}: a repository's MCP server may not be on the host's own network`;
  }
  if (isIP(host) && isPrivateAddress(host)) {
    return `${url}: a repository's MCP server may not be on a loopback, private or link-local address`;
  }
  return undefined;
}

function isPrivateAddress(ip: string): boolean {
  if (ip.includes(":")) {
    const v6 = ip.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6);
    if (mapped?.[1]) return isPrivateAddress(mapped[1]);
    // URL writes a mapped IPv4 address in hex: ::ffff:c0a8:1 is 192.168.0.1.
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
    if (hex?.[1] && hex[2]) {
      const [hi, lo] = [Number.parseInt(hex[1], 16), Number.parseInt(hex[2], 16)];
      return isPrivateAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
    }
    return v6 === "::1" || v6 === "::" || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6);
  }
  const [a = 0, b = 0] = ip.split(".").map(Number);
  return (
    a === 10 ||
    a === 127 ||
    a === 0 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}
