import { stringify as iniStringify } from "ini";
import { loadYaml } from "../../load-yaml.js";
import type { NetworkPolicy } from "../network.js";
import type { HostTrust } from "./host-trust.js";
import { PROXY_VARIABLES } from "./proxy-settings.js";

/**
 * The host's trust as one sandbox sees it, by its network: the environment
 * it adds, and the user config files (npm's and yarn's) it shows in its
 * private HOME. On the host's network the host's own proxy is kept; behind
 * the allow-list proxy every tool is pointed at that proxy instead (the
 * host's proxy is then reached through it); with no network there is no
 * proxy at all. CA settings are the same for every network.
 */

export interface SandboxTrust {
  /** Replaces every proxy variable of the command's environment, then adds CA and tool settings. */
  env: Record<string, string>;
  /** The settings of npm's and yarn's user config files under its HOME (see homeFileTexts). */
  homeSettings: { npm: HostTrust["npm"]; yarn: HostTrust["yarn"] };
}

/** Tool variables that name a proxy: the host's on its network, the allow-list proxy behind it. */
const TOOL_PROXY_VARIABLES = ["YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "PIP_PROXY"];
const GIT_PROXY = ["GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"];

export function sandboxTrust(
  trust: HostTrust,
  network: NetworkPolicy,
  bridgeUrl: string,
): SandboxTrust {
  const env: Record<string, string> = { ...trust.caEnv, ...trust.toolEnv };
  const { proxy: _p, "https-proxy": _s, noproxy: _n, ...npm } = trust.npm;
  const { httpProxy: _h, httpsProxy: _hs, ...yarn } = trust.yarn;
  const gitProxy = env.GIT_CONFIG_KEY_0 === "http.proxy";
  for (const name of [...TOOL_PROXY_VARIABLES, ...(gitProxy ? GIT_PROXY : [])]) delete env[name];
  if (network.kind === "on") {
    // The host's own settings, as they are (credential-free, see host-trust.ts).
    Object.assign(
      env,
      trust.proxyEnv,
      pick(trust.toolEnv, [...TOOL_PROXY_VARIABLES, ...GIT_PROXY]),
    );
    Object.assign(npm, pick(trust.npm, ["proxy", "https-proxy", "noproxy"]));
    Object.assign(yarn, pick(trust.yarn, ["httpProxy", "httpsProxy"]));
  } else if (network.kind === "hosts") {
    // Everything goes to the allow-list proxy, which reaches the host's proxy itself.
    for (const name of PROXY_VARIABLES) if (!/no_proxy/i.test(name)) env[name] = bridgeUrl;
    // Yarn 2+ reads its own settings only, never the variables above.
    for (const name of TOOL_PROXY_VARIABLES) env[name] = bridgeUrl;
    if (gitProxy)
      Object.assign(env, {
        GIT_CONFIG_COUNT: "1",
        GIT_CONFIG_KEY_0: "http.proxy",
        GIT_CONFIG_VALUE_0: bridgeUrl,
      });
    Object.assign(npm, { proxy: bridgeUrl, "https-proxy": bridgeUrl });
    Object.assign(yarn, { httpProxy: bridgeUrl, httpsProxy: bridgeUrl });
    // Per-host proxies would go around the allow-list proxy.
    if (yarn.networkSettings) yarn.networkSettings = withoutProxies(yarn.networkSettings);
  }
  return { env, homeSettings: { npm, yarn } };
}

/**
 * The user config files a sandbox's HOME shows: file name -> content, for
 * the tools that have settings. The YAML writer is loaded only for a
 * sandbox that has yarn settings: it is a good part of what a job would
 * otherwise load before its first model request.
 */
export async function homeFileTexts(trust: SandboxTrust): Promise<Record<string, string>> {
  const { npm, yarn } = trust.homeSettings;
  const files: Record<string, string> = {};
  if (Object.keys(npm).length > 0) files[".npmrc"] = iniStringify(npm);
  if (Object.keys(yarn).length > 0) files[".yarnrc.yml"] = (await loadYaml()).stringify(yarn);
  return files;
}

function pick<T>(from: Record<string, T>, keys: readonly string[]): Record<string, T> {
  return Object.fromEntries(
    keys.flatMap((key) => (from[key] !== undefined ? [[key, from[key]]] : [])),
  );
}

function withoutProxies(settings: unknown): unknown {
  if (typeof settings !== "object" || settings === null) return settings;
  return Object.fromEntries(
    Object.entries(settings).map(([glob, entry]) => {
      const { httpProxy: _h, httpsProxy: _s, ...rest } = entry as Record<string, unknown>;
      return [glob, rest];
    }),
  );
}
