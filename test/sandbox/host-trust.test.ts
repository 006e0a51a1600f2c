// biome-ignore-all lint/suspicious/noTemplateCurlyInString: npmrc's own ${VAR} syntax
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inSystemDirs } from "../../src/sandbox/layout.js";
import { networkPolicy } from "../../src/sandbox/network.js";
import { safeCaPaths } from "../../src/sandbox/trust/ca-files.js";
import { readHostTrust } from "../../src/sandbox/trust/host-trust.js";
import { readNpmSettings } from "../../src/sandbox/trust/npm-settings.js";
import {
  bypassesProxy,
  outboundProxyFromEnv,
  proxyAuthorization,
} from "../../src/sandbox/trust/proxy-settings.js";
import { homeFileTexts, sandboxTrust } from "../../src/sandbox/trust/sandbox-trust.js";
import { readYarnSettings } from "../../src/sandbox/trust/yarn-settings.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { makeThrowawayCa, type ThrowawayCa } from "../helpers/tls-proxy.js";

const BRIDGE = "http://127.0.0.1:3128";
let ca: ThrowawayCa;
let caDir: string;

beforeAll(async () => {
  // Not makeTempDir: the CA outlives each test.
  caDir = await mkdtemp(join(tmpdir(), "pw-trust-ca-"));
  ca = await makeThrowawayCa(caDir);
}, 60_000);
afterAll(() => rm(caDir, { recursive: true, force: true }));

describe("npm's settings from the host's npmrc files", () => {
  it("keeps trust and network keys from global, pnpm's rc, user and environment, in npm's precedence", async () => {
    const home = await makeTempDir("pw-home-");
    const etc = await makeTempDir("pw-etc-");
    await writeFile(
      join(etc, "npmrc"),
      [
        "cafile=/corp/ca.pem",
        "registry=https://global.corp/",
        "strict-ssl=false",
        "https-proxy=http://proxy.corp:3128",
        "//global.corp/:_authToken=npm_GlobalToken",
        "always-auth=true",
        "",
      ].join("\n"),
    );
    await mkdir(join(home, ".config", "pnpm"), { recursive: true });
    await writeFile(join(home, ".config", "pnpm", "rc"), "no-proxy=.corp,localhost\n");
    await writeFile(
      join(home, ".npmrc"),
      [
        "registry=https://user.corp/",
        "@corp:registry=https://scoped.corp/",
        "_auth=dXNlcjpwYXNz",
        "username=me",
        "_password=cGFzcw==",
        "email=me@corp",
        "certfile=/home/me/client.crt",
        "keyfile=/home/me/client.key",
        "ca[]=-----BEGIN CERTIFICATE-----\\nAAA\\n-----END CERTIFICATE-----",
        "",
      ].join("\n"),
    );
    const settings = await readNpmSettings({
      env: {
        npm_config_globalconfig: join(etc, "npmrc"),
        // pnpm 11 and later read pnpm_config_*: theirs wins, as it does for pnpm.
        pnpm_config_proxy: "http://proxy.corp:8080",
        npm_config_proxy: "http://old-proxy.corp:8080",
      },
      home,
      nodePath: "/nowhere/bin/node",
    });
    expect(settings.values).toEqual({
      cafile: "/corp/ca.pem",
      registry: "https://user.corp/",
      "strict-ssl": false,
      "https-proxy": "http://proxy.corp:3128",
      noproxy: ".corp,localhost",
      "@corp:registry": "https://scoped.corp/",
      ca: ["-----BEGIN CERTIFICATE-----\\nAAA\\n-----END CERTIFICATE-----"],
      proxy: "http://proxy.corp:8080",
    });
    expect(settings.caFiles).toEqual(["/corp/ca.pem"]);
  });

  it("reads pnpm 11's global config.yaml, where `pnpm config set --global` writes network settings", async () => {
    const home = await makeTempDir("pw-home-");
    await mkdir(join(home, ".config", "pnpm"), { recursive: true });
    await writeFile(
      join(home, ".config", "pnpm", "config.yaml"),
      [
        "httpsProxy: http://proxy.corp:3128",
        "httpProxy: http://proxy.corp:3128",
        "noProxy: .corp,localhost",
        "strictSsl: false",
        "registry: https://npm.corp/",
        "_auth:",
        "  '@': { authToken: npm_Pnpm12Token }",
        "minimumReleaseAge: 60",
        "",
      ].join("\n"),
    );
    // A user .npmrc still wins, as it is read last.
    await writeFile(join(home, ".npmrc"), "registry=https://user.corp/\n");
    const settings = await readNpmSettings({ env: {}, home, nodePath: "/nowhere/bin/node" });
    expect(settings.values).toEqual({
      "https-proxy": "http://proxy.corp:3128",
      proxy: "http://proxy.corp:3128",
      noproxy: ".corp,localhost",
      "strict-ssl": false,
      registry: "https://user.corp/",
    });
    expect(JSON.stringify(settings)).not.toContain("npm_Pnpm12Token");
  });

  it("finds the global npmrc in node's prefix, and /etc/npmrc for a prefix of /", async () => {
    const prefix = await makeTempDir("pw-prefix-");
    await mkdir(join(prefix, "etc"));
    await writeFile(join(prefix, "etc", "npmrc"), "cafile=/from/prefix.pem\n");
    const settings = await readNpmSettings({
      env: {},
      home: undefined,
      nodePath: join(prefix, "bin", "node"),
    });
    expect(settings.values.cafile).toBe("/from/prefix.pem");
  });

  it("leaves out a URL with a user or password, or a value built from a secret, and says so", async () => {
    const home = await makeTempDir("pw-home-");
    await writeFile(
      join(home, ".npmrc"),
      [
        "https-proxy=http://me:hunter2@proxy.corp:3128",
        "registry=https://${REGISTRY_TOKEN}@registry.corp/",
        "@corp:registry=https://registry.corp/${NPM_TOKEN}/",
        "cafile=${HOME}/ca.pem",
        "",
      ].join("\n"),
    );
    const settings = await readNpmSettings({
      env: { NPM_TOKEN: "npm_abcdefghijklmnop", REGISTRY_TOKEN: "tok", HOME: home },
      home,
      nodePath: "/nowhere/bin/node",
    });
    expect(settings.values).toEqual({ cafile: `${home}/ca.pem` });
    const said = settings.notes.join("\n");
    expect(said).toContain("https-proxy");
    expect(said).toContain("registry");
    expect(said).toContain("@corp:registry");
    expect(said).not.toContain("hunter2");
    expect(said).not.toContain("npm_abcdefghijklmnop");
  });
});

describe("yarn 2+'s settings from ~/.yarnrc.yml and YARN_* variables", () => {
  it("keeps CA files, proxies, registries and per-host network settings, never a token or a client key", async () => {
    const home = await makeTempDir("pw-home-");
    await writeFile(
      join(home, ".yarnrc.yml"),
      [
        "httpsCaFilePath: /corp/ca.pem",
        "httpsProxy: http://proxy.corp:3128",
        "npmRegistryServer: https://registry.corp",
        "npmAuthToken: npm_YarnToken",
        "npmAlwaysAuth: true",
        "enableStrictSsl: false",
        "npmScopes:",
        "  corp:",
        "    npmRegistryServer: https://scoped.corp",
        "    npmAuthIdent: me:hunter2",
        "npmRegistries:",
        '  "https://registry.corp":',
        "    npmAuthToken: npm_RegistryToken",
        "networkSettings:",
        '  "*.corp":',
        "    caFilePath: /corp/other.pem",
        "    httpsKeyFilePath: /corp/client.key",
        "    httpsCertFilePath: /corp/client.crt",
        "    httpsProxy: http://user:pw@proxy.corp:3128",
        "",
      ].join("\n"),
    );
    const settings = await readYarnSettings({
      env: { YARN_CA_FILE_PATH: "/corp/env.pem", YARN_NPM_AUTH_TOKEN: "npm_EnvToken" },
      home,
    });
    expect(settings.values).toEqual({
      httpsCaFilePath: "/corp/ca.pem",
      httpsProxy: "http://proxy.corp:3128",
      npmRegistryServer: "https://registry.corp",
      enableStrictSsl: false,
      npmScopes: { corp: { npmRegistryServer: "https://scoped.corp" } },
      networkSettings: { "*.corp": { caFilePath: "/corp/other.pem" } },
    });
    expect(settings.env).toEqual({ YARN_CA_FILE_PATH: "/corp/env.pem" });
    expect(settings.caFiles.sort()).toEqual(["/corp/ca.pem", "/corp/env.pem", "/corp/other.pem"]);
    expect(settings.notes.join("\n")).toContain('networkSettings["*.corp"].httpsProxy');
  });
});

describe("CA files shown in sandboxes", () => {
  it("shows certificate files and folders of certificates, nothing else", async () => {
    const dir = await makeTempDir("pw-ca-");
    const { cert, key } = await ca.issue(["leaf.corp"]);
    await writeFile(join(dir, "bundle.pem"), cert);
    await writeFile(join(dir, "with-key.pem"), `${cert}${key}`);
    await writeFile(join(dir, "dotenv"), "ANTHROPIC_API_KEY=sk-ant-xyz\n");
    await mkdir(join(dir, "certs"));
    await writeFile(join(dir, "certs", "abcd1234.0"), cert);
    await mkdir(join(dir, "mixed"));
    await writeFile(join(dir, "mixed", "abcd1234.0"), cert);
    await writeFile(join(dir, "mixed", ".npmrc"), "//r/:_authToken=x\n");
    await mkdir(join(dir, "nested", "deeper"), { recursive: true });
    await symlink(join(dir, "bundle.pem"), join(dir, "link.pem"));
    const paths = await safeCaPaths([
      ca.certPath,
      join(dir, "bundle.pem"),
      join(dir, "link.pem"),
      join(dir, "with-key.pem"),
      join(dir, "dotenv"),
      join(dir, "certs"),
      join(dir, "mixed"),
      join(dir, "nested"),
      join(dir, "missing.pem"),
      "relative/ca.pem",
    ]);
    expect(paths.shown.sort()).toEqual(
      [ca.certPath, join(dir, "bundle.pem"), join(dir, "certs")].sort(),
    );
    const why = Object.fromEntries(paths.refused.map((entry) => [entry.path, entry.reason]));
    expect(why[join(dir, "with-key.pem")]).toMatch(/private key/);
    expect(why[join(dir, "dotenv")]).toMatch(/no certificate/);
    expect(why[join(dir, "mixed")]).toMatch(/\.npmrc/);
    expect(why[join(dir, "nested")]).toMatch(/folder/);
    expect(why["relative/ca.pem"]).toMatch(/absolute/);
  });
});

describe("the host's proxy", () => {
  it("is read from either case, ALL_PROXY as a fallback, and a bare host:port as http", () => {
    const proxy = outboundProxyFromEnv({
      https_proxy: "proxy.corp:3128",
      HTTP_PROXY: "http://other.corp:8080",
      ALL_PROXY: "http://all.corp:1",
      no_proxy: "localhost,.corp",
    });
    expect(proxy?.https?.href).toBe("http://proxy.corp:3128/");
    expect(proxy?.http?.href).toBe("http://other.corp:8080/");
    expect(proxy?.noProxy).toBe("localhost,.corp");
    expect(outboundProxyFromEnv({ ALL_PROXY: "http://all.corp:1" })?.https?.host).toBe(
      "all.corp:1",
    );
    expect(outboundProxyFromEnv({ HTTPS_PROXY: "socks5://x:1" })).toBeUndefined();
  });

  it("NO_PROXY: names and their subdomains, ports, and *", () => {
    const list = "localhost, .internal.corp,*.svc,registry.corp:8443,10.0.0.5";
    expect(bypassesProxy(list, "localhost", 80)).toBe(true);
    expect(bypassesProxy(list, "a.internal.corp", 443)).toBe(true);
    expect(bypassesProxy(list, "internal.corp", 443)).toBe(true);
    expect(bypassesProxy(list, "x.svc", 443)).toBe(true);
    expect(bypassesProxy(list, "registry.corp", 8443)).toBe(true);
    expect(bypassesProxy(list, "registry.corp", 443)).toBe(false);
    expect(bypassesProxy(list, "10.0.0.5", 22)).toBe(true);
    expect(bypassesProxy(list, "notinternal.corp", 443)).toBe(false);
    expect(bypassesProxy(list, "registry.npmjs.org", 443)).toBe(false);
    expect(bypassesProxy("*", "anything", 1)).toBe(true);
    expect(bypassesProxy("", "anything", 1)).toBe(false);
  });

  it("NO_PROXY: IPv6 addresses, and ranges for a host given by address, as curl reads them", () => {
    const list = "10.0.0.0/8, 192.168.1.0/24, fd00::/8, ::1, [fe80::1]:8080, 0.5";
    expect(bypassesProxy(list, "10.200.3.4", 443)).toBe(true);
    expect(bypassesProxy(list, "11.0.0.1", 443)).toBe(false);
    expect(bypassesProxy(list, "192.168.1.77", 80)).toBe(true);
    expect(bypassesProxy(list, "192.168.2.1", 80)).toBe(false);
    expect(bypassesProxy(list, "[fd12:3456::7]", 443)).toBe(true);
    expect(bypassesProxy(list, "fe00::1", 443)).toBe(false);
    // A bare IPv6 address has no port; a bracketed one may.
    expect(bypassesProxy(list, "::1", 3000)).toBe(true);
    expect(bypassesProxy(list, "[fe80::1]", 8080)).toBe(true);
    expect(bypassesProxy(list, "[fe80::1]", 443)).toBe(false);
    // A range says nothing of names, and an address is no name's subdomain.
    expect(bypassesProxy(list, "ten.corp", 443)).toBe(false);
    expect(bypassesProxy(list, "10.0.0.5", 443)).toBe(true);
    expect(bypassesProxy("0.5", "10.0.0.5", 443)).toBe(false);
    // A prefix longer than the family allows is no range.
    expect(bypassesProxy("10.0.0.0/40", "10.0.0.1", 443)).toBe(false);
  });

  it("its credentials become a Proxy-Authorization header, decoded", () => {
    expect(proxyAuthorization(new URL("http://corp%5Cme:p%40ss@proxy:1"))).toBe(
      `Basic ${Buffer.from("corp\\me:p@ss").toString("base64")}`,
    );
    expect(proxyAuthorization(new URL("http://proxy:1"))).toBeUndefined();
  });
});

describe("the host's trust in one sandbox", () => {
  async function trustOf(env: Record<string, string>, files: Record<string, string> = {}) {
    const home = await makeTempDir("pw-home-");
    for (const [name, content] of Object.entries(files)) {
      await mkdir(join(home, name, ".."), { recursive: true });
      await writeFile(join(home, name), content);
    }
    return readHostTrust({
      env: { HOME: home, ...env },
      home,
      nodePath: "/nowhere/bin/node",
      alreadyShown: inSystemDirs,
    });
  }

  it("keeps CA variables whose files hold certificates, and gives node npm's cafile when it has none", async () => {
    const trust = await trustOf(
      { SSL_CERT_FILE: "/etc/ssl/certs/ca-certificates.crt", REQUESTS_CA_BUNDLE: ca.certPath },
      { ".npmrc": `cafile=${ca.certPath}\n` },
    );
    expect(trust.caEnv).toEqual({
      SSL_CERT_FILE: "/etc/ssl/certs/ca-certificates.crt",
      REQUESTS_CA_BUNDLE: ca.certPath,
      NODE_EXTRA_CA_CERTS: ca.certPath,
    });
    // System folders are shown anyway: only the CA outside them is bound.
    expect(trust.caPaths).toEqual([ca.certPath]);
  });

  it("drops a CA setting that names something else than certificates, and says so", async () => {
    const dir = await makeTempDir("pw-ca-");
    await writeFile(join(dir, "app.env"), "PRIVATE_KEY=-----BEGIN RSA PRIVATE KEY-----\n");
    const trust = await trustOf(
      { NODE_EXTRA_CA_CERTS: join(dir, "app.env") },
      { ".npmrc": `cafile=${join(dir, "app.env")}\n` },
    );
    expect(trust.caEnv).toEqual({});
    expect(trust.caPaths).toEqual([]);
    expect(trust.npm.cafile).toBeUndefined();
    expect(trust.notes.join("\n")).toContain(`${join(dir, "app.env")} is not shown`);
  });

  it("takes git's and pip's CA and proxy from the user's own config files", async () => {
    const trust = await trustOf(
      {},
      {
        ".gitconfig": `[http]\n\tsslCAInfo = ${ca.certPath}\n\tproxy = http://proxy.corp:3128\n[credential]\n\thelper = store\n`,
        ".config/pip/pip.conf": `[global]\ncert = ${ca.certPath}\nindex-url = https://me:pw@pypi.corp/simple\ntrusted-host = pypi.corp\n`,
      },
    );
    expect(trust.toolEnv).toEqual({
      GIT_SSL_CAINFO: ca.certPath,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.proxy",
      GIT_CONFIG_VALUE_0: "http://proxy.corp:3128",
      PIP_CERT: ca.certPath,
      PIP_TRUSTED_HOST: "pypi.corp",
    });
    expect(trust.notes.join("\n")).toContain("pip's index-url carries a user or password");
  });

  it("follows git's includes to the proxy they set, as git reads them", async () => {
    const home = await makeTempDir();
    await writeFile(join(home, "corp.gitconfig"), "[HTTP]\n\tProxy = http://proxy.corp:3128\n");
    const trust = await trustOf(
      {},
      {
        ".gitconfig": `[user]\n\tname = me\n[include]\n\tpath = ${join(home, "corp.gitconfig")}\n`,
      },
    );
    expect(trust.toolEnv).toMatchObject({
      GIT_CONFIG_KEY_0: "http.proxy",
      GIT_CONFIG_VALUE_0: "http://proxy.corp:3128",
    });
  });

  it("on the host's network: the host's proxies; behind the allow-list: the bridge; with none: no proxy", async () => {
    const trust = await trustOf(
      {
        HTTPS_PROXY: "http://proxy.corp:3128",
        NO_PROXY: ".corp",
        YARN_HTTPS_PROXY: "http://proxy.corp:3128",
      },
      {
        ".npmrc": "https-proxy=http://proxy.corp:3128\nnoproxy=.corp\nregistry=https://r.corp/\n",
        ".yarnrc.yml": "httpsProxy: http://proxy.corp:3128\nnpmRegistryServer: https://r.corp\n",
      },
    );
    const on = sandboxTrust(trust, networkPolicy("on"), BRIDGE);
    expect(on.env).toMatchObject({ HTTPS_PROXY: "http://proxy.corp:3128", NO_PROXY: ".corp" });
    const onFiles = await homeFileTexts(on);
    expect(onFiles[".npmrc"]).toContain("https-proxy=http://proxy.corp:3128");
    expect(onFiles[".npmrc"]).toContain("noproxy=.corp");
    expect(onFiles[".yarnrc.yml"]).toContain("httpsProxy: http://proxy.corp:3128");

    const hosts = sandboxTrust(trust, networkPolicy(["registry.npmjs.org"]), BRIDGE);
    expect(hosts.env).toMatchObject({
      HTTPS_PROXY: BRIDGE,
      https_proxy: BRIDGE,
      HTTP_PROXY: BRIDGE,
      YARN_HTTPS_PROXY: BRIDGE,
    });
    expect(hosts.env.NO_PROXY).toBeUndefined();
    const hostsFiles = await homeFileTexts(hosts);
    expect(hostsFiles[".npmrc"]).toContain(`https-proxy=${BRIDGE}`);
    expect(hostsFiles[".npmrc"]).not.toContain("noproxy");
    expect(hostsFiles[".yarnrc.yml"]).toContain(`httpsProxy: ${BRIDGE}`);

    const off = sandboxTrust(trust, networkPolicy("off"), BRIDGE);
    expect(Object.keys(off.env).filter((name) => /proxy/i.test(name))).toEqual([]);
    const offFiles = await homeFileTexts(off);
    expect(offFiles[".npmrc"]).toBe("registry=https://r.corp/\n");
    expect(offFiles[".yarnrc.yml"]).not.toContain("Proxy");
  });
});
