import { noProxyWithLoopback, outboundProxyFromEnv } from "../sandbox/trust/proxy-settings.js";

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
 * (proxy-settings.ts), NO_PROXY and loopback excepted. Nothing changes
 * without a proxy. A user and password in the proxy's URL go to the proxy
 * only. Resolves to whether a proxy is used.
 */
export async function routeFetchThroughProxy(
  env: Record<string, string | undefined>,
): Promise<boolean> {
  const proxy = outboundProxyFromEnv(env);
  if (!proxy) return false;
  // The undici package of the major Node 20 bundles: its global dispatcher is the one fetch uses.
  const { EnvHttpProxyAgent, setGlobalDispatcher } = await import("undici");
  // Without one of its own, HTTPS goes through the HTTP proxy (as curl does).
  const https = proxy.https ?? proxy.http;
  const options = {
    ...(proxy.http ? { httpProxy: proxy.http.href } : {}),
    ...(https ? { httpsProxy: https.href } : {}),
    noProxy: noProxyWithLoopback(env),
  };
  setGlobalDispatcher(withoutWarning("UNDICI-EHPA", () => new EnvHttpProxyAgent(options)));
  return true;
}

/**
 * Runs `make` without the one warning `code` it emits: undici marks this
 * agent experimental with a line on stderr, on every start of a CLI whose
 * output is the user's.
 */
function withoutWarning<T>(code: string, make: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const options = rest[0];
    if (typeof options === "object" && options !== null && "code" in options) {
      if ((options as { code?: unknown }).code === code) return;
    }
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return make();
  } finally {
    process.emitWarning = emit;
  }
}
