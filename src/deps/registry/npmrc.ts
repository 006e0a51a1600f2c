import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "ini";
import { readWorkspaceText } from "../../sandbox/host-files.js";
import { npmConfigFromEnv } from "../../sandbox/trust/npm-settings.js";

/**
 * The registry settings npm itself would use for a project: the project's
 * `.npmrc` over the user's, with `npm_config_*` environment variables on top
 * (npm's own precedence, without the global file, which belongs to the
 * machine rather than the project). `${VAR}` references are expanded from
 * `env`, as npm does, so tokens kept in CI secrets work.
 */

export const DEFAULT_REGISTRY = "https://registry.npmjs.org/";

export interface NpmConfig {
  /** The default registry, with a trailing slash. */
  registry: string;
  /** Flat npm options (`@scope:registry`, `//host/:_authToken`, proxies) for npm-registry-fetch. */
  options: Record<string, string | boolean>;
  /** Environment variables the files referenced; npm child processes need them too. */
  referencedEnv: string[];
}

export interface ReadNpmConfigOptions {
  /** The project root (where package.json and its .npmrc are). */
  dir: string;
  env: Record<string, string | undefined>;
  /** The user's home; default: env.HOME. */
  home?: string | undefined;
}

/** Keys that matter for reaching a registry or choosing versions; the rest of .npmrc is npm's business. */
const KEPT_KEYS =
  /^(registry|@[^:]+:registry|\/\/.+:(_authToken|_auth|username|_password|certfile|keyfile)|strict-ssl|ca|cafile|proxy|https-proxy|noproxy|min-release-age|minimum-release-age|use-node-version|fetch-retries|fetch-retry-factor|fetch-retry-mintimeout|fetch-retry-maxtimeout)$/;

/** npm's retry keys, and the field of npm-registry-fetch's `retry` each sets. */
const RETRY_KEYS: Record<string, "retries" | "factor" | "minTimeout" | "maxTimeout"> = {
  "fetch-retries": "retries",
  "fetch-retry-factor": "factor",
  "fetch-retry-mintimeout": "minTimeout",
  "fetch-retry-maxtimeout": "maxTimeout",
};

/**
 * Tries again after a reset connection, a timeout, a 429 or a 5xx, as npm
 * does (npm's own default is also two more tries). The waits are shorter than
 * npm's 10 s and 60 s: a job waits on them, and the usual cause, a kept-alive
 * socket the registry or a proxy closed, is gone at once. .npmrc's keys win.
 */
const DEFAULT_RETRY = { retries: 2, factor: 4, minTimeout: 500, maxTimeout: 8000 };

export async function readNpmConfig(options: ReadNpmConfigOptions): Promise<NpmConfig> {
  const home = options.home ?? options.env.HOME;
  const userFile =
    options.env.npm_config_userconfig ??
    options.env.NPM_CONFIG_USERCONFIG ??
    (home ? join(home, ".npmrc") : undefined);
  const referenced = new Set<string>();
  const layers = [
    userFile ? await readNpmrc(readFile(userFile, "utf8"), options.env, referenced) : {},
    // The repository's own file: never through a link out of it.
    await readNpmrc(readWorkspaceText(options.dir, ".npmrc"), options.env, referenced),
    fromEnv(options.env),
  ];
  const merged: Record<string, string | boolean> = Object.assign({}, ...layers);
  const registry = withSlash(String(merged.registry ?? DEFAULT_REGISTRY));
  const { registry: _registry, ...rest } = merged;
  return { registry, options: rest, referencedEnv: [...referenced].sort() };
}

/** The registry a package is fetched from: its scope's registry, else the default one. */
export function registryFor(name: string, config: NpmConfig): string {
  if (name.startsWith("@")) {
    const scoped = config.options[`${name.split("/")[0]}:registry`];
    if (typeof scoped === "string") return withSlash(scoped);
  }
  return config.registry;
}

/** Options in the shape npm-registry-fetch takes (npm's flat config keys). */
export function toFetchOptions(config: NpmConfig): Record<string, unknown> {
  const retry: Record<string, number> = { ...DEFAULT_RETRY };
  const options: Record<string, unknown> = { registry: config.registry, retry };
  for (const [key, value] of Object.entries(config.options)) {
    if (key === "min-release-age" || key === "minimum-release-age") continue;
    const retryField = RETRY_KEYS[key];
    if (retryField) {
      const number = Number(value);
      if (Number.isFinite(number) && number >= 0) retry[retryField] = number;
    } else if (key === "strict-ssl") options.strictSSL = value !== false && value !== "false";
    else if (key === "https-proxy") options.proxy ??= value;
    else if (key === "noproxy") options.noProxy = value;
    else options[key] = value;
  }
  return options;
}

/**
 * The waits npm's fetch makes between its tries (promise-retry's, without
 * its randomness), for a request it does not ask again itself (a POST).
 */
export function retryDelaysMs(fetchOptions: Record<string, unknown>): number[] {
  const retry = { ...DEFAULT_RETRY, ...(fetchOptions.retry as Partial<typeof DEFAULT_RETRY>) };
  return Array.from({ length: retry.retries }, (_, i) =>
    Math.min(retry.maxTimeout, retry.minTimeout * retry.factor ** i),
  );
}

async function readNpmrc(
  content: Promise<string>,
  env: Record<string, string | undefined>,
  referenced: Set<string>,
): Promise<Record<string, string | boolean>> {
  let text: string;
  try {
    text = await content;
  } catch {
    return {};
  }
  const out: Record<string, string | boolean> = {};
  for (const [key, value] of Object.entries(parse(text))) {
    const name = expandEnv(key, env, referenced);
    if (!KEPT_KEYS.test(name)) continue;
    if (typeof value === "string") out[name] = expandEnv(value, env, referenced);
    else if (typeof value === "boolean") out[name] = value;
  }
  return out;
}

/** `${NAME}` from env; `${NAME?}` may be unset (empty), as in npm. A lone `$` is literal. */
function expandEnv(text: string, env: Record<string, string | undefined>, seen: Set<string>) {
  return text.replace(
    /(\\*)\$\{([^${}?]+)(\?)?\}/g,
    (match, slashes: string, name: string, optional) => {
      if (slashes.length % 2 === 1) return match.slice(1);
      seen.add(name);
      const value = env[name];
      if (value === undefined && !optional) return match;
      return `${slashes}${value ?? ""}`;
    },
  );
}

/**
 * The registry the environment names: `npm_config_registry`, then
 * `pnpm_config_registry` over it, as the sandboxes' npmrc gets them, so the
 * plan asks the registry the job's commands will.
 */
function fromEnv(env: Record<string, string | undefined>): Record<string, string> {
  const { registry } = npmConfigFromEnv(env);
  return registry === undefined ? {} : { registry };
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
