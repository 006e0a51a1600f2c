import { spawn } from "node:child_process";
import { isIP } from "node:net";
import { bareHost } from "../sandbox/address-kind.js";
import { bypassesProxy, noProxyWithLoopback } from "../sandbox/trust/proxy-settings.js";

/**
 * A self-hosted runner behind a company proxy sets HTTPS_PROXY (and
 * NO_PROXY) for every step, and the Actions toolkit's own clients honour it.
 * Node's fetch and node:https do only when Node starts with
 * NODE_USE_ENV_PROXY=1 (or --use-env-proxy; node:https from Node 24.5 and
 * 22.21), a setting read once at start. So when the step has a proxy and
 * not that setting, the Action starts itself again with it: its GitHub and
 * model calls then go through the proxy as the toolkit's do (one more
 * Node start, ~70 ms, on such runners only), loopback excepted. git takes
 * the proxy from the same variables itself.
 *
 * Node reads NO_PROXY differently from curl, git, the App and the
 * sandboxes (proxy-settings.ts). It has no ranges: measured on Node 24.9.0,
 * with `127.0.0.0/8` fetch and node:http sent a request for 127.0.0.2 to the
 * proxy. And its two clients disagree on IPv6: fetch matches `[fd00::1]`
 * only, node:http `fd00::1` only. So the restarted Node's NO_PROXY names
 * every IPv6 entry both ways, and each of the Action's own endpoints given
 * by an address that the step's NO_PROXY covers (by a range, say) exactly:
 * a GitHub Enterprise or model server on the company network is reached
 * directly, as the step's NO_PROXY says.
 */

/** The variables Node's NODE_USE_ENV_PROXY reads. */
const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/**
 * The restarted Action's environment: NODE_USE_ENV_PROXY=1, and NO_PROXY
 * (both spellings, which Node and git each read) with loopback added to
 * what the step already names.
 */
export function envProxyEnv(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const entries = [...noProxyWithLoopback(env).split(","), ...endpointsToName(env)];
  const noProxy = [...new Set(entries.flatMap(nodeForms))].join(",");
  return { ...env, NODE_USE_ENV_PROXY: "1", NO_PROXY: noProxy, no_proxy: noProxy };
}

/** An exact IPv6 entry as both of Node's clients read it; any other entry as it is. */
function nodeForms(entry: string): string[] {
  const address = bareHost(entry);
  return isIP(address) === 6 ? [address, `[${address}]`] : [entry];
}

/** The variables that give the hosts the Action's own fetch and node:https reach. */
const ENDPOINT_VARIABLES = [
  "GITHUB_API_URL",
  "GITHUB_SERVER_URL",
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_BEDROCK_BASE_URL",
  "ANTHROPIC_VERTEX_BASE_URL",
  "OPENAI_BASE_URL",
];

/**
 * The NO_PROXY entries Node needs to reach the Action's endpoints given by
 * an address directly, as the step's NO_PROXY (read as curl does) asks,
 * and that the step does not write in Node's way.
 */
export function endpointsToName(env: Record<string, string | undefined>): string[] {
  const entries = [env.no_proxy, env.NO_PROXY]
    .flatMap((list) => (list ?? "").split(/[\s,]+/))
    .filter(Boolean)
    .map((entry) => entry.toLowerCase());
  // Every host direct already, for Node too.
  if (entries.includes("*")) return [];
  const written = new Set(entries);
  const missing = new Set<string>();
  for (const name of ENDPOINT_VARIABLES) {
    const url = parseUrl(env[name]);
    if (!url) continue;
    const host = bareHost(url.hostname).toLowerCase();
    const port = Number(url.port) || (url.protocol === "http:" ? 80 : 443);
    if (isIP(host) === 0 || !bypassesProxy(entries.join(","), host, port)) continue;
    for (const form of nodeForms(host)) {
      if (!written.has(form) && !written.has(`${form}:${port}`)) missing.add(form);
    }
  }
  return [...missing];
}

function parseUrl(value: string | undefined): URL | undefined {
  try {
    return value?.trim() ? new URL(value.trim()) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether this Node sends node:https and fetch through the environment's proxy when asked. */
export function supportsEnvProxy(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 24 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21);
}

/** Whether the Action must start again with NODE_USE_ENV_PROXY=1 to use the step's proxy. */
export function needsEnvProxyRestart(
  env: Record<string, string | undefined>,
  execArgv: readonly string[],
  version: string,
): boolean {
  if (!PROXY_VARIABLES.some((name) => env[name]?.trim())) return false;
  if (!supportsEnvProxy(version)) return false;
  // Already on: again only when Node would send one of the endpoints to the proxy.
  if (env.NODE_USE_ENV_PROXY?.trim() || execArgv.includes("--use-env-proxy")) {
    return endpointsToName(env).length > 0;
  }
  return true;
}

/**
 * Runs this same script in a Node started with NODE_USE_ENV_PROXY=1, its
 * output the step's, and resolves with its exit code. The runner's signals
 * (a cancelled job: SIGINT, then SIGTERM) are passed on, so the run still
 * stops as it would have.
 */
export function restartWithEnvProxy(env: Record<string, string | undefined>): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: envProxyEnv(env),
    stdio: "inherit",
  });
  const pass = (signal: NodeJS.Signals) => () => child.kill(signal);
  const signals = ["SIGINT", "SIGTERM"] as const;
  const handlers = signals.map((signal) => [signal, pass(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  return new Promise((done) => {
    const finish = (code: number) => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      done(code);
    };
    child.on("error", (error) => {
      console.error(
        `::error::could not start the Action again with NODE_USE_ENV_PROXY=1: ${error.message}`,
      );
      finish(1);
    });
    child.on("exit", (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}
