import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findShell, runShellProcess } from "../../src/agent/shell-process.js";
import { buildShellEnv } from "../../src/agent/tools/shell-env.js";
import { type NetworkSetting, networkPolicy } from "../../src/sandbox/network.js";
import type { SandboxLauncher } from "../../src/sandbox/sandbox.js";
import { type LocalRegistry, startLocalRegistry } from "../helpers/npm-registry.js";
import { sandboxTrusting } from "../helpers/sandbox.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import {
  type InspectingProxy,
  makeThrowawayCa,
  startInspectingProxy,
  type ThrowawayCa,
} from "../helpers/tls-proxy.js";

/**
 * A company network on loopback: the registry is reached only as
 * https://registry.corp.test through a proxy that inspects HTTPS with a
 * throwaway CA. The host trusts that CA the usual ways, and only those:
 * `cafile=` and the proxy in npm's global npmrc (which also holds a
 * token), NODE_EXTRA_CA_CERTS and HTTPS_PROXY in the environment, and
 * yarn 2+'s own ~/.yarnrc.yml (with its own token). npm, pnpm, yarn 1 and
 * yarn 4 install in a setup sandbox as they would on the host, and none of
 * the credentials in those files can be read there.
 */

const NPM_TOKEN = "npm_CorpToken0123456789abcdefABCDEF0123";
const YARN_TOKEN = "npm_YarnToken0123456789abcdefABCDEF0123";
const AUTH = "Y29ycDpodW50ZXIy"; // base64 corp:hunter2
const PROXY_PASSWORD = "proxy-pass-7f3a9c";

const modules = (path: string) =>
  fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));

let root: string;
let registry: LocalRegistry;
let ca: ThrowawayCa;
let proxy: InspectingProxy;
let lockedProxy: InspectingProxy;
/** The host: its environment and HOME. */
let host: { env: Record<string, string>; home: string };
let launcher: SandboxLauncher;
let notes: string[];
/** The package managers, shown read-only in each sandbox. */
let tools: Record<"pnpm" | "yarn1" | "yarn4", string>;

beforeAll(async () => {
  // Not makeTempDir: that one is emptied after every test, and this world outlives them.
  root = await realpath(await mkdtemp(join(tmpdir(), "pw-corp-")));
  registry = await startLocalRegistry(root);
  await registry.publish({ name: "px-lib", version: "1.2.3" });
  // Older than yarn 4's default age gate.
  await registry.setPublishTime("px-lib", "1.2.3", new Date(Date.now() - 30 * 86_400_000));
  ca = await makeThrowawayCa(root);
  const routes = { "registry.corp.test:443": registry.url };
  proxy = await startInspectingProxy({ ca, routes });
  lockedProxy = await startInspectingProxy({
    ca,
    routes,
    credentials: { user: "corp", password: PROXY_PASSWORD },
  });
  const home = join(root, "home");
  await mkdir(home, { recursive: true });
  const globalrc = join(root, "etc-npmrc");
  await writeFile(
    globalrc,
    [
      `cafile=${ca.certPath}`,
      "registry=https://registry.corp.test/",
      `https-proxy=${proxy.url}`,
      `proxy=${proxy.url}`,
      `//registry.corp.test/:_authToken=${NPM_TOKEN}`,
      "audit=false",
      "",
    ].join("\n"),
  );
  await writeFile(
    join(home, ".npmrc"),
    `_auth=${AUTH}\nemail=dev@corp.test\nfund=false\n//registry.corp.test/:username=corp\n`,
  );
  await writeFile(
    join(home, ".yarnrc.yml"),
    [
      'npmRegistryServer: "https://registry.corp.test"',
      `httpsProxy: "${proxy.url}"`,
      `npmAuthToken: "${YARN_TOKEN}"`,
      "npmScopes:",
      "  corp:",
      '    npmRegistryServer: "https://registry.corp.test"',
      `    npmAuthToken: "${YARN_TOKEN}"`,
      "",
    ].join("\n"),
  );
  host = {
    home,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      NPM_CONFIG_GLOBALCONFIG: globalrc,
      NODE_EXTRA_CA_CERTS: ca.certPath,
      HTTPS_PROXY: proxy.url,
      HTTP_PROXY: proxy.url,
    },
  };
  ({ launcher, notes } = await sandboxTrusting(host));
  tools = {
    pnpm: await realpath(modules("pnpm")),
    yarn1: await realpath(modules("yarn")),
    yarn4: await realpath(modules("@yarnpkg/cli-dist")),
  };
}, 120_000);

afterAll(async () => {
  await Promise.all([proxy?.close(), lockedProxy?.close()]);
  await registry?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A project needing px-lib, and a command run in a setup sandbox as the job runs setup. */
async function inSandbox(
  command: string,
  options: {
    network?: NetworkSetting;
    launcher?: SandboxLauncher;
    env?: Record<string, string>;
  } = {},
) {
  const workspace = await makeTempDir("pw-corp-ws-");
  await writeFile(
    join(workspace, "package.json"),
    JSON.stringify({ name: "app", version: "1.0.0", dependencies: { "px-lib": "^1.0.0" } }),
  );
  const sandbox = (options.launcher ?? launcher).open({
    workspace,
    readOnly: Object.values(tools),
    network: networkPolicy(options.network ?? "on"),
  });
  const env = buildShellEnv(options.env ?? host.env);
  try {
    const outcome = await runShellProcess(
      await findShell(env.PATH),
      `${command} 2>&1; echo "exit=$?"`,
      120,
      { cwd: workspace, env, signal: new AbortController().signal, sandbox },
    );
    return { output: outcome.stdout, workspace };
  } finally {
    await sandbox.close();
  }
}

async function installedVersion(workspace: string): Promise<string | undefined> {
  const text = await readFile(
    join(workspace, "node_modules", "px-lib", "package.json"),
    "utf8",
  ).catch(() => undefined);
  return text ? (JSON.parse(text) as { version: string }).version : undefined;
}

describe("setup on a network that inspects HTTPS", () => {
  it("npm install works with the trust the host has, through its proxy", async () => {
    const asked = proxy.asked.length;
    const { output, workspace } = await inSandbox("npm install --no-package-lock");
    expect(output).toContain("exit=0");
    expect(await installedVersion(workspace)).toBe("1.2.3");
    expect(proxy.asked.slice(asked)).toContain("registry.corp.test:443");
  }, 120_000);

  it("pnpm install works the same way", async () => {
    const { output, workspace } = await inSandbox(
      `node ${tools.pnpm}/bin/pnpm.cjs install --no-frozen-lockfile --reporter=append-only`,
    );
    expect(output).toContain("exit=0");
    expect(await installedVersion(workspace)).toBe("1.2.3");
  }, 120_000);

  it("yarn 1 install works the same way", async () => {
    const { output, workspace } = await inSandbox(
      `node ${tools.yarn1}/bin/yarn.js install --non-interactive --no-lockfile`,
    );
    expect(output).toContain("exit=0");
    expect(await installedVersion(workspace)).toBe("1.2.3");
  }, 120_000);

  it("yarn 4 install works from the user's own .yarnrc.yml, without its token", async () => {
    const { output, workspace } = await inSandbox(
      `YARN_ENABLE_GLOBAL_CACHE=0 YARN_NODE_LINKER=node-modules node ${tools.yarn4}/bin/yarn.js install`,
    );
    expect(output).toContain("exit=0");
    expect(await installedVersion(workspace)).toBe("1.2.3");
  }, 120_000);

  it("with no CA settings, the install fails the way the issue saw it", async () => {
    const { launcher: bare } = await sandboxTrusting({
      home: await makeTempDir("pw-bare-home-"),
      env: { PATH: host.env.PATH ?? "", HTTPS_PROXY: proxy.url },
    });
    const { output } = await inSandbox(
      "npm install --no-package-lock --fetch-retries=0 --registry=https://registry.corp.test/",
      { launcher: bare, env: { PATH: host.env.PATH ?? "", HTTPS_PROXY: proxy.url } },
    );
    expect(output).not.toContain("exit=0");
    expect(output).toMatch(
      /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE/,
    );
  }, 120_000);
});

describe("credentials stay on the host", () => {
  it("no token, password or auth line from the npmrc or yarnrc files can be read in a sandbox", async () => {
    const { output } = await inSandbox(
      [
        `cat ${host.env.NPM_CONFIG_GLOBALCONFIG}`,
        `cat ${host.home}/.npmrc ${host.home}/.yarnrc.yml`,
        "cat ~/.npmrc ~/.yarnrc.yml",
        "env",
        "npm config list -l",
        `node ${tools.yarn4}/bin/yarn.js config --json`,
        "grep -rs 'Token\\|_auth' /tmp /etc /usr/etc 2>/dev/null | head -50",
      ].join("; "),
    );
    // The commands ran and saw the kept settings...
    expect(output).toContain("registry=https://registry.corp.test/");
    expect(output).toContain("cafile=");
    // ...and none of the credentials beside them.
    for (const secret of [NPM_TOKEN, YARN_TOKEN, AUTH, "dev@corp.test"]) {
      expect(output).not.toContain(secret);
    }
  }, 120_000);

  it("a proxy URL with a password is not given to sandboxes, and the log says why", async () => {
    const lockedUrl = lockedProxy.url.replace("http://", `http://corp:${PROXY_PASSWORD}@`);
    const env = { ...host.env, HTTPS_PROXY: lockedUrl, HTTP_PROXY: lockedUrl };
    const withLocked = await sandboxTrusting({ env, home: host.home });
    expect(withLocked.notes.join("\n")).toMatch(/HTTPS_PROXY carries a user or password/);
    const { output } = await inSandbox("env; cat ~/.npmrc", { launcher: withLocked.launcher, env });
    expect(output).not.toContain(PROXY_PASSWORD);
  }, 120_000);

  it("setup_network: public reaches the registry through the host's proxy with its password, which the sandbox never sees", async () => {
    const lockedUrl = lockedProxy.url.replace("http://", `http://corp:${PROXY_PASSWORD}@`);
    const env = { ...host.env, HTTPS_PROXY: lockedUrl, HTTP_PROXY: lockedUrl };
    const withLocked = await sandboxTrusting({ env, home: host.home });
    const asked = lockedProxy.asked.length;
    const refused = lockedProxy.refused;
    const { output, workspace } = await inSandbox(
      "npm install --no-package-lock --fetch-retries=0; env; cat ~/.npmrc",
      { network: "public", launcher: withLocked.launcher, env },
    );
    expect(output).toContain("exit=0");
    expect(await installedVersion(workspace)).toBe("1.2.3");
    expect(lockedProxy.asked.slice(asked)).toContain("registry.corp.test:443");
    expect(lockedProxy.refused).toBe(refused);
    expect(output).not.toContain(PROXY_PASSWORD);
  }, 120_000);

  it("the host's trust settings were all kept: nothing was left out but credentials", () => {
    expect(notes).toEqual([]);
  });
});
