import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalRegistry, startLocalRegistry } from "./npm-registry.js";
import {
  type InspectingProxy,
  makeThrowawayCa,
  startInspectingProxy,
  type ThrowawayCa,
} from "./tls-proxy.js";

/**
 * A company network on loopback: the registry is reached only as
 * https://registry.corp.test through a proxy that inspects HTTPS with a
 * throwaway CA. The host trusts that CA the usual ways, and only those:
 * `cafile=`, the registry and the proxy in npm's global npmrc (which also
 * holds a token), NODE_EXTRA_CA_CERTS and HTTPS_PROXY in the environment,
 * a user npmrc with auth lines, and yarn 2+'s own ~/.yarnrc.yml (with its
 * own token). `lockedProxy` is the same proxy asking for a password.
 */

export const CORP_SECRETS = {
  npmToken: "npm_CorpToken0123456789abcdefABCDEF0123",
  yarnToken: "npm_YarnToken0123456789abcdefABCDEF0123",
  /** base64 of corp:hunter2, in the user's npmrc. */
  auth: "Y29ycDpodW50ZXIy",
  email: "dev@corp.test",
  proxyPassword: "proxy-pass-7f3a9c",
} as const;

export const CORP_REGISTRY = "https://registry.corp.test/";

export interface CompanyNetwork {
  root: string;
  registry: LocalRegistry;
  ca: ThrowawayCa;
  proxy: InspectingProxy;
  lockedProxy: InspectingProxy;
  /** `http://corp:<password>@127.0.0.1:<port>`: the locked proxy with its credentials. */
  lockedProxyUrl: string;
  /** The host: its environment (no other variable) and HOME. */
  host: { env: Record<string, string>; home: string };
  close(): Promise<void>;
}

/** Publishes px-lib 1.2.3 (older than yarn 4's age gate) and sets the host up. */
export async function startCompanyNetwork(): Promise<CompanyNetwork> {
  // Not makeTempDir: that one is emptied after every test, and this world outlives them.
  const root = await realpath(await mkdtemp(join(tmpdir(), "pw-corp-")));
  const registry = await startLocalRegistry(root);
  await registry.publish({ name: "px-lib", version: "1.2.3" });
  await registry.setPublishTime("px-lib", "1.2.3", new Date(Date.now() - 30 * 86_400_000));
  const ca = await makeThrowawayCa(root);
  const routes = { "registry.corp.test:443": registry.url };
  const proxy = await startInspectingProxy({ ca, routes });
  const lockedProxy = await startInspectingProxy({
    ca,
    routes,
    credentials: { user: "corp", password: CORP_SECRETS.proxyPassword },
  });
  const home = join(root, "home");
  await mkdir(home, { recursive: true });
  const globalrc = join(root, "etc-npmrc");
  await writeFile(
    globalrc,
    [
      `cafile=${ca.certPath}`,
      `registry=${CORP_REGISTRY}`,
      `https-proxy=${proxy.url}`,
      `proxy=${proxy.url}`,
      `//registry.corp.test/:_authToken=${CORP_SECRETS.npmToken}`,
      "audit=false",
      "",
    ].join("\n"),
  );
  await writeFile(
    join(home, ".npmrc"),
    `_auth=${CORP_SECRETS.auth}\nemail=${CORP_SECRETS.email}\nfund=false\n//registry.corp.test/:username=corp\n`,
  );
  await writeFile(
    join(home, ".yarnrc.yml"),
    [
      'npmRegistryServer: "https://registry.corp.test"',
      `httpsProxy: "${proxy.url}"`,
      `npmAuthToken: "${CORP_SECRETS.yarnToken}"`,
      "npmScopes:",
      "  corp:",
      '    npmRegistryServer: "https://registry.corp.test"',
      `    npmAuthToken: "${CORP_SECRETS.yarnToken}"`,
      "",
    ].join("\n"),
  );
  return {
    root,
    registry,
    ca,
    proxy,
    lockedProxy,
    lockedProxyUrl: lockedProxy.url.replace(
      "http://",
      `http://corp:${CORP_SECRETS.proxyPassword}@`,
    ),
    host: {
      home,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        NPM_CONFIG_GLOBALCONFIG: globalrc,
        NODE_EXTRA_CA_CERTS: ca.certPath,
        HTTPS_PROXY: proxy.url,
        HTTP_PROXY: proxy.url,
      },
    },
    async close() {
      await Promise.all([proxy.close(), lockedProxy.close()]);
      await registry.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
