/**
 * The machine's proxy for patchwright's own HTTPS (GitHub's API, the
 * model's). A machine on a company network that reaches the internet only
 * through a proxy names it in HTTPS_PROXY (and NO_PROXY); git, npm and the
 * Actions toolkit honour that, but Node's fetch does not unless Node started
 * with NODE_USE_ENV_PROXY=1, which Node 20 (the App's and the CLI's floor)
 * does not have at all. So their entry points give fetch a dispatcher that
 * goes through the proxy (fetch-proxy.ts), and the Action, on Node 24,
 * starts itself again with that setting (action/env-proxy.ts). Loopback
 * is never sent to the company's proxy, which cannot reach this machine's
 * own services.
 */

export const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

const LOOPBACK = ["localhost", "127.0.0.1", "::1"];

type Env = Record<string, string | undefined>;

/** Whether the environment names a proxy. */
export function hasProxy(env: Env): boolean {
  return PROXY_VARIABLES.some((name) => env[name]?.trim());
}

/** NO_PROXY's hosts (either spelling), with loopback added. */
export function noProxyList(env: Env): string {
  const named = [env.no_proxy, env.NO_PROXY]
    .flatMap((list) => (list ?? "").split(","))
    .map((host) => host.trim())
    .filter(Boolean);
  return [...new Set([...named, ...LOOPBACK])].join(",");
}
