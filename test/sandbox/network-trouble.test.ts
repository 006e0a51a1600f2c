import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { networkPolicy } from "../../src/sandbox/network.js";
import {
  describeNetworkTrouble,
  findNetworkTrouble,
  type NetworkTrouble,
  watchNetworkTrouble,
} from "../../src/sandbox/network-trouble.js";

/** What real tools printed (see test/fixtures/network-trouble/README.md). */
const fixture = (name: string) =>
  readFile(join(import.meta.dirname, "..", "fixtures", "network-trouble", `${name}.txt`), "utf8");

describe("network failures in what real tools print", () => {
  it.each([
    [
      "pnpm_tls",
      { kind: "tls", code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE", host: "registry.corp.test" },
    ],
    ["yarn1_tls", { kind: "tls", code: "unable to verify the first certificate" }],
    // corepack 0.34 fetching pnpm through this VM's registry, whose answers carry no signatures.
    [
      "corepack_unsigned",
      { kind: "unsigned", code: "No compatible signature found in package metadata" },
    ],
    [
      "curl_tls",
      { kind: "tls", code: "SSL certificate problem: unable to get local issuer certificate" },
    ],
    [
      "git_tls",
      { kind: "tls", code: "server certificate verification failed", host: "git.corp.test" },
    ],
    ["pip_tls", { kind: "tls", code: "certificate verify failed", host: "registry.corp.test" }],
    ["curl_dns", { kind: "dns", code: "could not resolve host", host: "no-such-host.invalid" }],
    ["git_dns", { kind: "dns", code: "could not resolve host", host: "no-such-host.invalid" }],
    ["npm_dns", { kind: "dns", code: "ENOTFOUND", host: "no-such-host.invalid" }],
    ["npm_refused", { kind: "connection", code: "ECONNREFUSED", host: "127.0.0.1" }],
  ] as const)("%s", async (name, expected) => {
    expect(findNetworkTrouble(await fixture(name))).toEqual(expected);
  });

  it("names npm's retries as its debug log writes them", () => {
    expect(
      findNetworkTrouble(
        "12 http fetch GET https://registry.corp.test/npm attempt 1 failed with SELF_SIGNED_CERT_IN_CHAIN",
      ),
    ).toEqual({ kind: "tls", code: "SELF_SIGNED_CERT_IN_CHAIN", host: "registry.corp.test" });
  });

  it("a proxy asking for a password, and the sandbox's own allow-list", () => {
    expect(
      findNetworkTrouble("npm error code E407\nnpm error 407 Proxy Authentication Required"),
    ).toEqual({ kind: "proxy-auth", code: "407 Proxy Authentication Required" });
    expect(
      findNetworkTrouble(
        "patchwright sandbox: evil.example:443 is not in this repository's network allow-list (`network:` in .github/patchwright.yml)",
      ),
    ).toEqual({ kind: "blocked", code: "not in the allow-list", host: "evil.example" });
  });

  it("reads 407 as a status only where it is said as one", () => {
    for (const line of [
      "npm error code E407",
      "ERR_PNPM_FETCH_407  GET https://registry.npmjs.org/x: Proxy Authentication Required",
      "curl: (56) CONNECT tunnel failed, response 407",
      "fatal: unable to access 'https://github.com/o/r/': Received HTTP code 407 from proxy after CONNECT",
      "error: RPC failed; HTTP 407 curl 22 The requested URL returned error: 407",
      "Error: Request failed with status code 407",
      // undici's fetch through a proxy (Node's own fetch, the model SDKs).
      "fetch failed: Request was cancelled.: Proxy response (407) !== 200 when HTTP Tunneling",
    ])
      expect(findNetworkTrouble(line)?.kind, line).toBe("proxy-auth");
    // What a passing install prints: counts and versions.
    for (const line of [
      "added 407 packages, and audited 408 packages in 31s",
      "npm warn deprecated glob@7.2.407: Glob versions prior to v9 are no longer supported",
      "Progress: resolved 407, reused 400, downloaded 7, added 407, done",
    ])
      expect(findNetworkTrouble(line), line).toBeUndefined();
  });

  it("finds nothing in a passing install or a failing test run", () => {
    expect(findNetworkTrouble("added 120 packages in 3s\nfound 0 vulnerabilities")).toBeUndefined();
    expect(
      findNetworkTrouble("not ok 1 - fetches the user\n  AssertionError: expected 200, got 404"),
    ).toBeUndefined();
  });
});

describe("saying what to do", () => {
  it("names the host, the error and the setting to look at", () => {
    const tls: NetworkTrouble = {
      kind: "tls",
      code: "SELF_SIGNED_CERT_IN_CHAIN",
      host: "registry.corp.test",
    };
    const said = describeNetworkTrouble(tls, {
      network: networkPolicy("on"),
      setting: "setup_network",
    });
    expect(said).toContain("registry.corp.test");
    expect(said).toContain("SELF_SIGNED_CERT_IN_CHAIN");
    expect(said).toContain("NODE_EXTRA_CA_CERTS");
    const dns: NetworkTrouble = { kind: "dns", code: "ENOTFOUND", host: "registry.npmjs.org" };
    expect(describeNetworkTrouble(dns, { network: networkPolicy("off"), setting: "network" })).toBe(
      "network: registry.npmjs.org cannot be resolved (ENOTFOUND). This command has no network (`network` in .github/patchwright.yml)",
    );
    const proxy: NetworkTrouble = { kind: "proxy-auth", code: "407 Proxy Authentication Required" };
    expect(
      describeNetworkTrouble(proxy, { network: networkPolicy("on"), setting: "setup_network" }),
    ).toContain("set setup_network to `public`");
    const unsigned: NetworkTrouble = {
      kind: "unsigned",
      code: "No compatible signature found in package metadata",
    };
    const corepack = describeNetworkTrouble(unsigned, {
      network: networkPolicy("on"),
      setting: "setup_network",
    });
    expect(corepack).toContain("without npm's signatures");
    expect(corepack).toContain("`+sha512.…`");
    expect(corepack).toContain("COREPACK_INTEGRITY_KEYS=0");
  });
});

describe("watching output as it arrives", () => {
  it("reports each kind once, across chunk boundaries, and again once the host is known", () => {
    const seen: NetworkTrouble[] = [];
    const watch = watchNetworkTrouble((trouble) => seen.push(trouble));
    watch.push("npm error code UNABLE_TO_VERIFY_LEAF_SIGN");
    expect(seen).toEqual([]);
    watch.push("ATURE\nnpm error errno UNABLE_TO_VERIFY_LEAF_SIGNATURE\n");
    expect(seen).toEqual([{ kind: "tls", code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" }]);
    watch.push(
      "npm error request to https://registry.corp.test/x failed, reason: unable to verify the first certificate\n",
    );
    watch.push(
      "12 http fetch GET https://registry.corp.test/y attempt 2 failed with UNABLE_TO_VERIFY_LEAF_SIGNATURE\n",
      "log",
    );
    expect(seen.map((t) => t.host)).toEqual([undefined, "registry.corp.test"]);
    expect(watch.first()).toEqual({
      kind: "tls",
      code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
      host: "registry.corp.test",
    });
  });

  it("keeps lines of different sources apart", () => {
    const seen: NetworkTrouble[] = [];
    const watch = watchNetworkTrouble((trouble) => seen.push(trouble));
    watch.push("curl: (6) Could not resolve ", "out");
    watch.push("everything fine\n", "log");
    watch.push("host: files.corp.test\n", "out");
    expect(seen).toEqual([
      { kind: "dns", code: "could not resolve host", host: "files.corp.test" },
    ]);
  });
});
