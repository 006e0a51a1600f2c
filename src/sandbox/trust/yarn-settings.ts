import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadYaml } from "../../load-yaml.js";
import { hasCredentials, parseProxyUrl } from "./proxy-settings.js";

/**
 * Yarn 2+ reads neither npmrc nor the proxy variables: its trust and network
 * settings live in the user's `~/.yarnrc.yml` and `YARN_*` variables. This
 * keeps the ones that say how to reach a registry (CA files, proxies,
 * strict SSL, registry servers, per-host network settings) and never an
 * `npmAuthToken`, `npmAuthIdent`, client certificate or key, or a URL that
 * carries a user or password.
 */

export interface YarnSettings {
  values: Record<string, unknown>;
  /** `YARN_*` variables of the same settings, from the host's environment. */
  env: Record<string, string>;
  caFiles: string[];
  notes: string[];
}

const TOP_KEYS = [
  "caFilePath",
  "httpsCaFilePath",
  "httpProxy",
  "httpsProxy",
  "enableStrictSsl",
  "npmRegistryServer",
  "unsafeHttpWhitelist",
] as const;
/** Inside `networkSettings.<host glob>`. */
const NETWORK_KEYS = ["caFilePath", "httpProxy", "httpsProxy", "enableNetwork"] as const;
const CA_KEYS = new Set(["caFilePath", "httpsCaFilePath"]);
const URL_KEYS = new Set(["httpProxy", "httpsProxy", "npmRegistryServer"]);

/** The same settings as Yarn's environment spells them. */
const ENV_NAMES: Record<string, string> = {
  YARN_CA_FILE_PATH: "caFilePath",
  YARN_HTTPS_CA_FILE_PATH: "httpsCaFilePath",
  YARN_HTTP_PROXY: "httpProxy",
  YARN_HTTPS_PROXY: "httpsProxy",
  YARN_ENABLE_STRICT_SSL: "enableStrictSsl",
  YARN_NPM_REGISTRY_SERVER: "npmRegistryServer",
  YARN_UNSAFE_HTTP_WHITELIST: "unsafeHttpWhitelist",
};

export async function readYarnSettings(options: {
  env: Record<string, string | undefined>;
  home: string | undefined;
}): Promise<YarnSettings> {
  const { env, home } = options;
  const notes: string[] = [];
  const caFiles: string[] = [];
  const values: Record<string, unknown> = {};
  const file = home ? join(home, env.YARN_RC_FILENAME || ".yarnrc.yml") : undefined;
  const doc = file
    ? await readFile(file, "utf8").then(
        // The YAML parser is loaded only when there is a file (see sandbox-trust.ts).
        async (text) => (await loadYaml()).parse(text) as unknown,
        () => undefined,
      )
    : undefined;
  const source = file ?? "";
  const accept = (key: string, value: unknown, where: string): unknown => {
    if (typeof value === "string") {
      const text = expand(value, env);
      if (URL_KEYS.has(key) && isCredentialUrl(text)) {
        notes.push(`${where} in ${source} carries a user or password, so sandboxes do not get it`);
        return undefined;
      }
      if (CA_KEYS.has(key)) caFiles.push(text);
      return text;
    }
    return typeof value === "boolean" || Array.isArray(value) ? value : undefined;
  };
  if (isRecord(doc)) {
    for (const key of TOP_KEYS) {
      const value = accept(key, doc[key], key);
      if (value !== undefined) values[key] = value;
    }
    const scopes = scopedRegistries(doc.npmScopes, (scope, value) =>
      accept("npmRegistryServer", value, `npmScopes.${scope}.npmRegistryServer`),
    );
    if (scopes) values.npmScopes = scopes;
    const network = networkSettings(doc.networkSettings, accept);
    if (network) values.networkSettings = network;
  }
  const yarnEnv: Record<string, string> = {};
  for (const [name, key] of Object.entries(ENV_NAMES)) {
    const value = env[name];
    if (!value) continue;
    if (URL_KEYS.has(key) && isCredentialUrl(value)) {
      notes.push(`${name} carries a user or password, so sandboxes do not get it`);
      continue;
    }
    if (CA_KEYS.has(key)) caFiles.push(value);
    yarnEnv[name] = value;
  }
  return { values, env: yarnEnv, caFiles, notes };
}

function scopedRegistries(
  scopes: unknown,
  accept: (scope: string, value: unknown) => unknown,
): Record<string, { npmRegistryServer: unknown }> | undefined {
  if (!isRecord(scopes)) return undefined;
  const out: Record<string, { npmRegistryServer: unknown }> = {};
  for (const [scope, settings] of Object.entries(scopes)) {
    if (!isRecord(settings)) continue;
    const server = accept(scope, settings.npmRegistryServer);
    if (server !== undefined) out[scope] = { npmRegistryServer: server };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function networkSettings(
  settings: unknown,
  accept: (key: string, value: unknown, where: string) => unknown,
): Record<string, Record<string, unknown>> | undefined {
  if (!isRecord(settings)) return undefined;
  const out: Record<string, Record<string, unknown>> = {};
  for (const [glob, entry] of Object.entries(settings)) {
    if (!isRecord(entry)) continue;
    const kept: Record<string, unknown> = {};
    for (const key of NETWORK_KEYS) {
      const value = accept(key, entry[key], `networkSettings["${glob}"].${key}`);
      if (value !== undefined) kept[key] = value;
    }
    if (Object.keys(kept).length > 0) out[glob] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function isCredentialUrl(text: string): boolean {
  const url = parseProxyUrl(text);
  return url !== undefined && hasCredentials(url);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `${NAME}` and `${NAME:-default}`, as Yarn expands its rc files. */
function expand(text: string, env: Record<string, string | undefined>): string {
  return text.replace(
    /\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/gi,
    (match, name: string, fallback?: string) => env[name] ?? fallback ?? match,
  );
}
