import { checkHost, type Resolve, systemResolve } from "../agent/mcp/address-guard.js";
import {
  type McpServersConfig,
  type ResolvedMcpServers,
  resolveMcpServers,
} from "../agent/mcp/config.js";
import { guardedFetch, proxyForUrl } from "../agent/mcp/guarded-fetch.js";
import type { SessionMcp } from "../agent/session.js";
import type { GitEnv } from "../git/git-client.js";
import { gitMetadataPaths } from "../git/workspace/git-metadata.js";
import { type LauncherSource, launcherFrom } from "../sandbox/sandbox.js";
import { type OutboundProxy, outboundProxyFromEnv } from "../sandbox/trust/proxy-settings.js";

/**
 * A job's MCP servers, from the repository's `mcp_servers:`: stdio servers
 * start in a sandbox of the job's workspace (with the network their config
 * gives), HTTP servers are reached from the host. Since the server running
 * patchwright makes that request, a repository's config may not point it at
 * the host's own network: plain http, and a name with any loopback, private,
 * link-local, unique-local or unspecified address (cloud metadata, Redis,
 * internal services) are refused. The check runs here, to report a refused
 * server on the tracking comment, and again on every connection, which goes
 * to the address just checked (see guardedFetch); redirects are not followed.
 * Behind the host's proxy (HTTPS_PROXY) the request goes through it, and a
 * name this machine cannot resolve is left to the proxy.
 */

export async function jobMcp(options: {
  servers: McpServersConfig;
  env: GitEnv;
  launcher: LauncherSource;
  dir: string;
  /** Resolves HTTP servers' names; the system's resolver unless a test gives one. */
  resolve?: Resolve | undefined;
}): Promise<SessionMcp> {
  const resolved = await guardRepositoryServers(
    resolveMcpServers(options.servers, options.env, "repository"),
    options.resolve ?? systemResolve,
    outboundProxyFromEnv(options.env),
  );
  // The git metadata the job's own git trusts stays read-only, as in the agent's sandbox.
  const readOnly = await gitMetadataPaths(options.dir, options.env);
  const launcher = await launcherFrom(options.launcher);
  return {
    ...resolved,
    sandboxFor: (network) => launcher.open({ workspace: options.dir, readOnly, network }),
  };
}

/**
 * A repository's servers with its HTTP ones checked: a refused one is
 * dropped and reported among the problems, the others connect only to the
 * address checked. The CLI runs a checkout's config through this too.
 */
export async function guardRepositoryServers(
  resolved: ResolvedMcpServers,
  resolve: Resolve = systemResolve,
  proxy?: OutboundProxy,
): Promise<ResolvedMcpServers> {
  const problems = [...resolved.problems];
  const checked = await Promise.all(
    resolved.servers.map(async (server) => {
      if (server.transport !== "http") return server;
      const refusal = await refusedUrl(server.url, resolve, proxy);
      if (refusal) {
        problems.push({ server: server.name, message: refusal });
        return undefined;
      }
      return { ...server, fetch: guardedFetch(resolve, undefined, proxy) };
    }),
  );
  return {
    ...resolved,
    servers: checked.filter((server) => server !== undefined),
    problems,
  };
}

/** Why a repository's HTTP server URL is not reached from the host, or undefined. */
export async function refusedUrl(
  url: string,
  resolve: Resolve = systemResolve,
  proxy?: OutboundProxy,
): Promise<string | undefined> {
  const parsed = new URL(url);
  if (parsed.protocol !== "https:") return `${url}: a repository's MCP server must use https`;
  const checked = await checkHost(parsed.hostname, resolve);
  if (checked.refused === undefined) return undefined;
  if (checked.unresolved && proxyForUrl(parsed, proxy)) return undefined;
  return `${url}: ${checked.refused}; a repository's MCP server must be on a public address, not the host's own network`;
}
