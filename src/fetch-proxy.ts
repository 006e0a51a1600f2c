import { hasProxy, noProxyList } from "./env-proxy.js";

/**
 * The App's and the CLI's fetch through the machine's proxy (env-proxy.ts
 * says why). Apart from env-proxy.ts so that the Action, which only needs
 * the variables' reading, does not bundle undici.
 */

type Env = Record<string, string | undefined>;

/**
 * Sends this process's fetch (Octokit's and the model SDKs') through the
 * environment's proxy, NO_PROXY and loopback excepted. Nothing changes
 * without a proxy. A proxy's user and password in its URL are sent to the
 * proxy only. Resolves to whether a proxy is used.
 */
export async function routeFetchThroughProxy(env: Env): Promise<boolean> {
  if (!hasProxy(env)) return false;
  // The undici package of the major Node 20 bundles: its global dispatcher is the one fetch uses.
  const { EnvHttpProxyAgent, setGlobalDispatcher } = await import("undici");
  const httpProxy = pick(env, "http_proxy", "HTTP_PROXY");
  const httpsProxy = pick(env, "https_proxy", "HTTPS_PROXY");
  // Without one of its own, HTTPS goes through HTTP_PROXY (as curl does).
  const viaHttps = httpsProxy ?? httpProxy;
  const options = {
    ...(httpProxy ? { httpProxy } : {}),
    ...(viaHttps ? { httpsProxy: viaHttps } : {}),
    noProxy: noProxyList(env),
  };
  setGlobalDispatcher(withoutWarning("UNDICI-EHPA", () => new EnvHttpProxyAgent(options)));
  return true;
}

/** The lower-case spelling first, as curl and undici read them. */
function pick(env: Env, lower: string, upper: string): string | undefined {
  return env[lower]?.trim() || env[upper]?.trim() || undefined;
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
