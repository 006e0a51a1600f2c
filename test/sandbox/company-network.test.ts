import { readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findShell, runShellProcess } from "../../src/agent/shell-process.js";
import { buildShellEnv } from "../../src/agent/tools/shell-env.js";
import { runCommand } from "../../src/kernel/run-command.js";
import { type NetworkSetting, networkPolicy } from "../../src/sandbox/network.js";
import type { SandboxLauncher } from "../../src/sandbox/sandbox.js";
import {
  CORP_SECRETS,
  type CompanyNetwork,
  startCompanyNetwork,
} from "../helpers/company-network.js";
import { sandboxTrusting } from "../helpers/sandbox.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { startInspectingProxy } from "../helpers/tls-proxy.js";

/**
 * Setup in a sandbox on a company network (test/helpers/company-network.ts):
 * npm, pnpm, yarn 1 and yarn 4 install as they would on the host, with the
 * trust the host has and nothing else, and none of the credentials in the
 * host's npmrc and yarnrc files (nor its proxy's password) can be read
 * there. A network failure is named while the command still runs.
 */

const modules = (path: string) =>
  fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));

let corp: CompanyNetwork;
let host: CompanyNetwork["host"];
let launcher: SandboxLauncher;
let notes: string[];
/** The package managers, shown read-only in each sandbox. */
let tools: Record<"pnpm" | "yarn1" | "yarn4", string>;

beforeAll(async () => {
  corp = await startCompanyNetwork();
  host = corp.host;
  ({ launcher, notes } = await sandboxTrusting(host));
  tools = {
    pnpm: await realpath(modules("pnpm")),
    yarn1: await realpath(modules("yarn")),
    yarn4: await realpath(modules("@yarnpkg/cli-dist")),
  };
}, 120_000);

afterAll(async () => {
  await corp?.close();
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
    const asked = corp.proxy.asked.length;
    const { output, workspace } = await inSandbox("npm install --no-package-lock");
    expect(output).toContain("exit=0");
    expect(await installedVersion(workspace)).toBe("1.2.3");
    expect(corp.proxy.asked.slice(asked)).toContain("registry.corp.test:443");
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

  it("without the host's CA, a retrying npm install is named while it runs, and in the result", async () => {
    const bareEnv = { PATH: host.env.PATH ?? "", HTTPS_PROXY: corp.proxy.url };
    const { launcher: bare } = await sandboxTrusting({
      home: await makeTempDir("pw-bare-home-"),
      env: bareEnv,
    });
    const workspace = await makeTempDir("pw-corp-ws-");
    await writeFile(
      join(workspace, "package.json"),
      JSON.stringify({ name: "app", version: "1.0.0", dependencies: { "px-lib": "^1.0.0" } }),
    );
    const sandbox = bare.open({ workspace, readOnly: [], network: networkPolicy("on") });
    const live: Array<{ note: string; running: boolean }> = [];
    let running = true;
    try {
      // npm retries in silence (its output says nothing until it gives up); its log does.
      const result = await runCommand({
        command:
          "npm install --no-package-lock --registry=https://registry.corp.test/ --fetch-retries=2 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=2000",
        cwd: workspace,
        env: buildShellEnv(bareEnv),
        sandbox,
        signal: new AbortController().signal,
        clock: Date,
        networkSetting: "setup_network",
        onNetworkTrouble: (note) => live.push({ note, running }),
      });
      running = false;
      expect(result.passed).toBe(false);
      expect(result.networkTrouble).toMatch(
        /^network: the TLS certificate of registry\.corp\.test is not trusted \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\)/,
      );
      expect(result.networkTrouble).toContain("NODE_EXTRA_CA_CERTS");
      expect(live).toHaveLength(1);
      expect(live[0]?.running).toBe(true);
      expect(live[0]?.note).toContain("registry.corp.test is not trusted");
    } finally {
      await sandbox.close();
    }
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
    for (const secret of [
      CORP_SECRETS.npmToken,
      CORP_SECRETS.yarnToken,
      CORP_SECRETS.auth,
      CORP_SECRETS.email,
    ]) {
      expect(output).not.toContain(secret);
    }
  }, 120_000);

  it("a proxy URL with a password is not given to sandboxes, and the log says why", async () => {
    const lockedUrl = corp.lockedProxyUrl;
    const env = { ...host.env, HTTPS_PROXY: lockedUrl, HTTP_PROXY: lockedUrl };
    const withLocked = await sandboxTrusting({ env, home: host.home });
    expect(withLocked.notes.join("\n")).toMatch(/HTTPS_PROXY carries a user or password/);
    const { output } = await inSandbox("env; cat ~/.npmrc", { launcher: withLocked.launcher, env });
    expect(output).not.toContain(CORP_SECRETS.proxyPassword);
  }, 120_000);

  it("setup_network: public reaches the registry through the host's proxy with its password, which the sandbox never sees", async () => {
    const lockedUrl = corp.lockedProxyUrl;
    const env = { ...host.env, HTTPS_PROXY: lockedUrl, HTTP_PROXY: lockedUrl };
    const withLocked = await sandboxTrusting({ env, home: host.home });
    const asked = corp.lockedProxy.asked.length;
    const refused = corp.lockedProxy.refused;
    const { output, workspace } = await inSandbox(
      "npm install --no-package-lock --fetch-retries=0; env; cat ~/.npmrc",
      { network: "public", launcher: withLocked.launcher, env },
    );
    expect(output).toContain("exit=0");
    expect(await installedVersion(workspace)).toBe("1.2.3");
    expect(corp.lockedProxy.asked.slice(asked)).toContain("registry.corp.test:443");
    expect(corp.lockedProxy.refused).toBe(refused);
    expect(output).not.toContain(CORP_SECRETS.proxyPassword);
  }, 120_000);

  it("the allow-list proxy reaches an https:// host proxy with the CA only npm's cafile names", async () => {
    const secure = await startInspectingProxy({
      ca: corp.ca,
      routes: { "registry.corp.test:443": corp.registry.url },
      secure: true,
    });
    try {
      // No NODE_EXTRA_CA_CERTS: the host trusts the company CA through npm's config alone.
      const { NODE_EXTRA_CA_CERTS: _ca, ...rest } = host.env;
      const env = { ...rest, HTTPS_PROXY: secure.url, HTTP_PROXY: secure.url };
      const { launcher: viaHttps } = await sandboxTrusting({ env, home: host.home });
      const { output, workspace } = await inSandbox(
        "npm install --no-package-lock --fetch-retries=0",
        {
          network: "public",
          launcher: viaHttps,
          env,
        },
      );
      expect(output).toContain("exit=0");
      expect(await installedVersion(workspace)).toBe("1.2.3");
      expect(secure.asked).toContain("registry.corp.test:443");
      // Addressed by IP: TLS names no server (RFC 6066 allows names only; Node warns otherwise).
      expect(secure.servernames.length).toBeGreaterThan(0);
      expect(secure.servernames.every((name) => name === false)).toBe(true);
    } finally {
      await secure.close();
    }
  }, 120_000);

  it("the host's trust settings were all kept: nothing was left out but credentials", () => {
    expect(notes).toEqual([]);
  });
});
