import {
  noProxyWithLoopback,
  outboundProxyFromEnv,
  proxyFor,
} from "../sandbox/trust/proxy-settings.js";

/**
 * The App's and the CLI's own HTTPS (GitHub's API, the model's) through the
 * machine's proxy. On a company network that reaches the internet only
 * through a proxy, git, npm and the Actions toolkit honour HTTPS_PROXY, but
 * Node's fetch does not unless Node started with NODE_USE_ENV_PROXY=1, which
 * Node 20 (the App's and the CLI's floor) does not have at all. So their
 * entry points give fetch a dispatcher that goes through the proxy (the
 * Action, on Node 24, starts itself again with that setting instead:
 * action/env-proxy.ts). Loopback is never sent to the company's proxy.
 */

/**
 * Sends this process's fetch (Octokit's and the model SDKs') through the
 * proxy the environment names, read as the sandboxes' tools read it
 * (proxy-settings.ts: NO_PROXY's names, addresses and ranges), loopback
 * excepted. Nothing changes without a proxy. A user and password in the
 * proxy's URL go to the proxy only. Resolves to whether a proxy is used.
 */
export async function routeFetchThroughProxy(
  env: Record<string, string | undefined>,
): Promise<boolean> {
  const found = outboundProxyFromEnv(env);
  if (!found) return false;
  // The undici package of the major Node 20 bundles: its global dispatcher is the one fetch uses.
  const { Agent, ProxyAgent, setGlobalDispatcher } = await import("undici");
  // Without one of its own, HTTPS goes through the HTTP proxy.
  const proxy = { ...found, https: found.https ?? found.http, noProxy: noProxyWithLoopback(env) };
  const viaProxy = new Map<string, InstanceType<typeof ProxyAgent>>();
  type Dispatch = InstanceType<typeof Agent>["dispatch"];
  /**
   * Direct, or through the proxy NO_PROXY leaves for the origin: chosen per
   * request, as undici's EnvHttpProxyAgent does, but by the rules the
   * sandboxes use (undici's reads no address ranges).
   */
  class ProxyChoosingAgent extends Agent {
    override dispatch(...[options, handler]: Parameters<Dispatch>): boolean {
      const origin = new URL(String(options.origin));
      const scheme = origin.protocol === "https:" ? "https" : "http";
      const port = Number(origin.port || (scheme === "https" ? 443 : 80));
      const via = proxyFor(proxy, scheme, origin.hostname, port);
      if (!via) return super.dispatch(options, handler);
      let agent = viaProxy.get(via.href);
      if (!agent) {
        agent = new ProxyAgent(via.href);
        viaProxy.set(via.href, agent);
      }
      return agent.dispatch(options, handler);
    }
  }
  setGlobalDispatcher(new ProxyChoosingAgent());
  return true;
}
