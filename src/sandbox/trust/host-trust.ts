import { readFile } from "node:fs/promises";
import { type CaPaths, safeCaPaths } from "./ca-files.js";
import { CA_VARIABLES } from "./ca-variables.js";
import { type NpmSettings, readNpmSettings } from "./npm-settings.js";
import {
  hasCredentials,
  type OutboundProxy,
  outboundProxyFromEnv,
  PROXY_VARIABLES,
  parseProxyUrl,
} from "./proxy-settings.js";
import { readToolSettings } from "./tool-settings.js";
import { readYarnSettings, type YarnSettings } from "./yarn-settings.js";

/**
 * What the host trusts and how it reaches the network, read once per
 * process, so sandboxed commands work on the same company network as the
 * host: the CA bundles and the proxy the environment names, and the same
 * settings from npm's, pnpm's, yarn's, git's and pip's own config files.
 * Credentials never come along (tokens, a proxy's password, client keys);
 * the host's proxy itself, password included, is used only by the host
 * side of a sandbox's network (host-proxy.ts).
 */

export interface HostTrust {
  /** CA variables for every sandboxed command (NODE_EXTRA_CA_CERTS, GIT_SSL_CAINFO, …). */
  caEnv: Record<string, string>;
  /** Tool variables that are not about proxies (git's, pip's, yarn's). */
  toolEnv: Record<string, string>;
  /** The host's proxy variables without credentials, for sandboxes on the host's network. */
  proxyEnv: Record<string, string>;
  /** The host's proxy as it is (credentials included): only host-side code uses it. */
  proxy: OutboundProxy | undefined;
  npm: NpmSettings["values"];
  yarn: YarnSettings["values"];
  /** CA files and folders to show read-only (real paths). */
  caPaths: string[];
  /** What was left out, for the operator's log. */
  notes: string[];
}

export const NO_HOST_TRUST: HostTrust = {
  caEnv: {},
  toolEnv: {},
  proxyEnv: {},
  proxy: undefined,
  npm: {},
  yarn: {},
  caPaths: [],
  notes: [],
};

export interface HostTrustOptions {
  env: Record<string, string | undefined>;
  home: string | undefined;
  nodePath: string;
  /** Paths a sandbox shows anyway (system folders): not bound a second time. */
  alreadyShown?: (path: string) => boolean;
}

export async function readHostTrust(options: HostTrustOptions): Promise<HostTrust> {
  const { env } = options;
  const [npm, yarn, tools] = await Promise.all([
    readNpmSettings(options),
    readYarnSettings(options),
    readToolSettings(options),
  ]);
  const named = CA_VARIABLES.flatMap((name) => (env[name] ? [[name, env[name]] as const] : []));
  const paths = await safeCaPaths(
    [...named.map(([, path]) => path), ...npm.caFiles, ...yarn.caFiles, ...tools.caFiles].filter(
      (path) => !options.alreadyShown?.(path),
    ),
  );
  const refused = new Set(paths.refused.map((entry) => entry.path));
  const caEnv: Record<string, string> = {};
  for (const [name, path] of named) if (!refused.has(path)) caEnv[name] = path;
  // The host trusts npm's CA for npm; a postinstall script fetching with
  // node (a binary download) needs the same, and the variable only adds to
  // node's own list.
  const cafile = npm.values.cafile;
  if (!caEnv.NODE_EXTRA_CA_CERTS && typeof cafile === "string" && !refused.has(cafile)) {
    caEnv.NODE_EXTRA_CA_CERTS = cafile;
  }
  const toolEnv = dropRefused({ ...tools.env, ...yarn.env }, refused);
  const { proxyEnv, notes: proxyNotes } = credentialFreeProxies(env);
  return {
    caEnv,
    toolEnv,
    proxyEnv,
    proxy: withCa(outboundProxyFromEnv(env), await certificateTexts(paths.shown)),
    npm: typeof cafile === "string" && refused.has(cafile) ? withoutCafile(npm.values) : npm.values,
    yarn: yarn.values,
    caPaths: paths.shown,
    notes: [...npm.notes, ...yarn.notes, ...tools.notes, ...proxyNotes, ...refusedNotes(paths)],
  };
}

/** The host's proxy, trusting the CA files the host's settings name when it is itself https://. */
function withCa(proxy: OutboundProxy | undefined, ca: string[]): OutboundProxy | undefined {
  return proxy && ca.length > 0 ? { ...proxy, ca } : proxy;
}

async function certificateTexts(paths: readonly string[]): Promise<string[]> {
  const texts = await Promise.all(paths.map((path) => readFile(path, "utf8").catch(() => "")));
  return texts.filter((text) => text.includes("-----BEGIN"));
}

function credentialFreeProxies(env: Record<string, string | undefined>) {
  const proxyEnv: Record<string, string> = {};
  const notes: string[] = [];
  for (const name of PROXY_VARIABLES) {
    const value = env[name];
    if (!value) continue;
    const url = name.toLowerCase() === "no_proxy" ? undefined : parseProxyUrl(value);
    if (url && hasCredentials(url)) {
      notes.push(
        `${name} carries a user or password, so sandboxes do not get it; ` +
          "a setup_network of `public` or a host list reaches that proxy through patchwright's own",
      );
      continue;
    }
    proxyEnv[name] = value;
  }
  return { proxyEnv, notes };
}

function dropRefused(env: Record<string, string>, refused: Set<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => !refused.has(value)));
}

function withoutCafile(values: NpmSettings["values"]): NpmSettings["values"] {
  const { cafile: _cafile, ...rest } = values;
  return rest;
}

function refusedNotes(paths: CaPaths): string[] {
  return paths.refused.map(
    ({ path, reason }) => `the CA setting ${path} is not shown in sandboxes: it ${reason}`,
  );
}
