import { spawn } from "node:child_process";
import { noProxyWithLoopback } from "../sandbox/trust/proxy-settings.js";

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
  const noProxy = noProxyWithLoopback(env);
  return { ...env, NODE_USE_ENV_PROXY: "1", NO_PROXY: noProxy, no_proxy: noProxy };
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
  if (env.NODE_USE_ENV_PROXY?.trim() || execArgv.includes("--use-env-proxy")) return false;
  return supportsEnvProxy(version);
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
