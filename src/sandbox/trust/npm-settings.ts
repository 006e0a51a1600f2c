import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parse } from "ini";
import { loadYaml } from "../../load-yaml.js";
import { secretsInEnv } from "../../secrets/patterns.js";
import { hasCredentials, parseProxyUrl } from "./proxy-settings.js";

/**
 * The trust and network settings npm, pnpm and yarn 1 read from the host's
 * npmrc files (global, pnpm's own rc, user) and `npm_config_*` variables,
 * with every credential left out: no `_authToken`, `_auth`, `_password`,
 * `username`, `email`, client certificates, `//host/:…` lines, nor a URL
 * that carries a user or password. A sandbox sees the rest as its user
 * config; the repository's own `.npmrc` still comes on top, as on the host.
 */

export interface NpmSettings {
  /** Kept keys in npm's spelling (`https-proxy`, `@scope:registry`); `ca` may be a list. */
  values: Record<string, string | boolean | string[]>;
  /** Files named by `cafile`. */
  caFiles: string[];
  /** What was left out that a reader would expect to be there. */
  notes: string[];
}

const KEPT = /^(registry|@[^:/]+:registry|cafile|ca|strict-ssl|proxy|https-proxy|noproxy)$/;
/** Keys whose value is a URL: one with a user or password in it is a credential. */
const URL_KEYS = /^(registry|@[^:/]+:registry|proxy|https-proxy)$/;

export interface NpmFileOptions {
  env: Record<string, string | undefined>;
  home: string | undefined;
  /** The running node (its prefix holds npm's global config when nothing else says). */
  nodePath: string;
}

/** The npmrc files of the host, lowest precedence first. */
export function hostNpmrcFiles(options: NpmFileOptions): string[] {
  const { env, home } = options;
  const prefix =
    env.npm_config_prefix ?? env.NPM_CONFIG_PREFIX ?? dirname(dirname(options.nodePath));
  const global =
    env.npm_config_globalconfig ??
    env.NPM_CONFIG_GLOBALCONFIG ??
    // npm's own rule: a prefix of / keeps its config in /etc/npmrc.
    (prefix === "/" ? "/etc/npmrc" : join(prefix, "etc", "npmrc"));
  const xdg = env.XDG_CONFIG_HOME || (home ? join(home, ".config") : undefined);
  const user =
    env.npm_config_userconfig ?? env.NPM_CONFIG_USERCONFIG ?? (home ? join(home, ".npmrc") : "");
  return [global, xdg ? join(xdg, "pnpm", "rc") : "", user].filter(Boolean);
}

export async function readNpmSettings(options: NpmFileOptions): Promise<NpmSettings> {
  const values: NpmSettings["values"] = {};
  const notes: string[] = [];
  const secrets = secretsInEnv(options.env).map((secret) => secret.value);
  const layers = await Promise.all(
    hostNpmrcFiles(options).map((file) =>
      readFile(file, "utf8").then(
        (text) => ({ file, entries: parse(text) as Record<string, unknown> }),
        () => undefined,
      ),
    ),
  );
  // pnpm 11 keeps its global network settings in YAML, beside its old rc file.
  layers.splice(layers.length - 1, 0, await pnpmGlobalConfig(options));
  for (const layer of layers) {
    if (layer) keep(layer.entries, layer.file, { env: options.env, secrets }, values, notes);
  }
  keep(
    npmConfigFromEnv(options.env),
    "the environment",
    { env: options.env, secrets },
    values,
    notes,
  );
  const caFiles = typeof values.cafile === "string" ? [values.cafile] : [];
  return { values, caFiles, notes };
}

function keep(
  entries: Record<string, unknown>,
  source: string,
  host: { env: Record<string, string | undefined>; secrets: string[] },
  into: NpmSettings["values"],
  notes: string[],
): void {
  for (const [rawKey, raw] of Object.entries(entries)) {
    const key = rawKey === "no-proxy" ? "noproxy" : rawKey;
    if (!KEPT.test(key)) continue;
    const value = Array.isArray(raw)
      ? raw.map((item) => expand(String(item), host.env))
      : typeof raw === "boolean"
        ? raw
        : expand(String(raw), host.env);
    // A value built from a secret the host holds (`${NPM_TOKEN}` in a URL) stays out.
    const texts = typeof value === "boolean" ? [] : [value].flat();
    if (texts.some((text) => host.secrets.some((secret) => text.includes(secret)))) {
      notes.push(`${key} in ${source} holds a secret's value, so sandboxes do not get it`);
      continue;
    }
    if (typeof value === "string" && URL_KEYS.test(key)) {
      const url = parseProxyUrl(value);
      if (url && hasCredentials(url)) {
        notes.push(
          `${key} in ${source} carries a user or password, so sandboxes do not get it` +
            (key.endsWith("proxy")
              ? "; a host list or `public` network reaches it through patchwright's proxy"
              : ""),
        );
        continue;
      }
    }
    into[key] = value;
  }
}

/**
 * pnpm 11's global config.yaml (`pnpm config set --global httpsProxy …`
 * writes there, no longer to an rc file), its keys in npm's spelling:
 * `httpsProxy` -> `https-proxy`, `httpProxy` -> `proxy`, `strictSsl` ->
 * `strict-ssl`. Its `_auth` and anything else `keep` does not name stay out.
 */
async function pnpmGlobalConfig(
  options: NpmFileOptions,
): Promise<{ file: string; entries: Record<string, unknown> } | undefined> {
  const xdg =
    options.env.XDG_CONFIG_HOME || (options.home ? join(options.home, ".config") : undefined);
  if (!xdg) return undefined;
  const file = join(xdg, "pnpm", "config.yaml");
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = (await loadYaml()).parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const entries: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const kebab = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    entries[kebab === "http-proxy" ? "proxy" : kebab] = value;
  }
  return { file, entries };
}

/**
 * `npm_config_https_proxy` -> `https-proxy`, as npm reads its environment;
 * then `pnpm_config_https_proxy`, which pnpm 11 and later read instead (a
 * host set up for them names its proxy so), over it.
 */
export function npmConfigFromEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const prefix of ["npm", "pnpm"]) {
    for (const [name, value] of Object.entries(env)) {
      const match = new RegExp(`^${prefix}_config_(.+)$`, "i").exec(name);
      if (!match?.[1] || value === undefined) continue;
      out[match[1].toLowerCase().replace(/_/g, "-")] = value;
    }
  }
  return out;
}

/** `${NAME}` from the host's environment, as npm expands it; unset stays as written. */
function expand(text: string, env: Record<string, string | undefined>): string {
  return text.replace(/\$\{([^${}?]+)\??\}/g, (match, name: string) => env[name] ?? match);
}
