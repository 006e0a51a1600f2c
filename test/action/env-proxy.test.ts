import { describe, expect, it } from "vitest";
import {
  endpointsToName,
  envProxyEnv,
  needsEnvProxyRestart,
  supportsEnvProxy,
} from "../../src/action/env-proxy.js";

describe("supportsEnvProxy", () => {
  it("is the Nodes whose node:https and fetch follow NODE_USE_ENV_PROXY", () => {
    expect(["20.18.0", "22.20.0", "24.4.1", "23.11.0"].map(supportsEnvProxy)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(["22.21.0", "24.5.0", "24.9.0", "25.0.0", "26.1.0"].map(supportsEnvProxy)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });
});

describe("needsEnvProxyRestart", () => {
  const proxy = "http://proxy.corp.test:3128";

  it("restarts when the step has a proxy (any of the four spellings) and Node does not use it yet", () => {
    for (const name of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"]) {
      expect(needsEnvProxyRestart({ [name]: proxy }, [], "24.9.0"), name).toBe(true);
    }
  });

  it("restarts a Node already using the proxy only when it would send an endpoint there that NO_PROXY keeps out", () => {
    const on = { HTTPS_PROXY: proxy, NODE_USE_ENV_PROXY: "1", NO_PROXY: "10.0.0.0/8" };
    expect(
      needsEnvProxyRestart({ ...on, GITHUB_API_URL: "https://10.1.2.3/api/v3" }, [], "24.9.0"),
    ).toBe(true);
    expect(
      needsEnvProxyRestart({ ...on, GITHUB_API_URL: "https://ghe.corp.test/api/v3" }, [], "24.9.0"),
    ).toBe(false);
    // Started again with the address named, it goes on.
    const again = envProxyEnv({ ...on, GITHUB_API_URL: "https://10.1.2.3/api/v3" });
    expect(needsEnvProxyRestart(again, [], "24.9.0")).toBe(false);
  });

  it("does not restart without a proxy, when Node already uses it, or on a Node that would not", () => {
    expect(needsEnvProxyRestart({}, [], "24.9.0")).toBe(false);
    expect(needsEnvProxyRestart({ HTTPS_PROXY: " " }, [], "24.9.0")).toBe(false);
    expect(
      needsEnvProxyRestart({ HTTPS_PROXY: proxy, NODE_USE_ENV_PROXY: "1" }, [], "24.9.0"),
    ).toBe(false);
    expect(needsEnvProxyRestart({ HTTPS_PROXY: proxy }, ["--use-env-proxy"], "24.9.0")).toBe(false);
    expect(needsEnvProxyRestart({ HTTPS_PROXY: proxy }, [], "20.18.0")).toBe(false);
  });
});

describe("envProxyEnv", () => {
  it("turns the proxy on and keeps loopback out of it, beside the hosts the step names", () => {
    const env = envProxyEnv({
      HTTPS_PROXY: "http://proxy:3128",
      no_proxy: "corp.test, .internal",
      NO_PROXY: "ghe.corp.test",
    });
    expect(env.NODE_USE_ENV_PROXY).toBe("1");
    expect(env.HTTPS_PROXY).toBe("http://proxy:3128");
    const expected = "corp.test,.internal,ghe.corp.test,localhost,127.0.0.1,::1,[::1]";
    expect([env.NO_PROXY, env.no_proxy]).toEqual([expected, expected]);
    expect(envProxyEnv({ HTTP_PROXY: "http://p" }).NO_PROXY).toBe("localhost,127.0.0.1,::1,[::1]");
  });

  it("writes each IPv6 entry both ways: Node's fetch matches it in brackets, its node:http without", () => {
    const env = envProxyEnv({
      HTTPS_PROXY: "http://p",
      NO_PROXY: "[fd00::5],fd00::6,[fd00::7]:8443",
    });
    expect(env.NO_PROXY?.split(",")).toEqual([
      "fd00::5",
      "[fd00::5]",
      "fd00::6",
      "[fd00::6]",
      "[fd00::7]:8443",
      "localhost",
      "127.0.0.1",
      "::1",
      "[::1]",
    ]);
  });

  it("names the endpoints that the step's NO_PROXY covers by a range, which Node does not read", () => {
    const env = envProxyEnv({
      HTTPS_PROXY: "http://proxy.corp:3128",
      NO_PROXY: "10.0.0.0/8,fd00::/8,.corp.test",
      GITHUB_API_URL: "https://10.1.2.3/api/v3",
      GITHUB_SERVER_URL: "https://10.1.2.3",
      ANTHROPIC_BASE_URL: "http://[fd00::9]:8080",
      OPENAI_BASE_URL: "https://api.openai.com/v1",
    });
    expect(env.NO_PROXY?.split(",")).toEqual([
      "10.0.0.0/8",
      "fd00::/8",
      ".corp.test",
      "localhost",
      "127.0.0.1",
      "::1",
      "[::1]",
      "10.1.2.3",
      "fd00::9",
      "[fd00::9]",
    ]);
  });
});

describe("endpointsToName", () => {
  const base = { HTTPS_PROXY: "http://proxy.corp:3128" };

  it("is empty when the endpoints are names, outside NO_PROXY, or already named as Node reads them", () => {
    expect(
      endpointsToName({
        ...base,
        NO_PROXY: "10.0.0.0/8",
        GITHUB_API_URL: "https://ghe.corp.test/api/v3",
      }),
    ).toEqual([]);
    expect(
      endpointsToName({
        ...base,
        NO_PROXY: "10.0.0.0/8",
        GITHUB_API_URL: "https://192.168.1.4/api/v3",
      }),
    ).toEqual([]);
    expect(
      endpointsToName({
        ...base,
        NO_PROXY: "10.0.0.0/8,10.1.2.3",
        GITHUB_API_URL: "https://10.1.2.3",
      }),
    ).toEqual([]);
    expect(
      endpointsToName({
        ...base,
        no_proxy: "10.0.0.0/8",
        NO_PROXY: "10.1.2.3:8443",
        OPENAI_BASE_URL: "https://10.1.2.3:8443/v1",
      }),
    ).toEqual([]);
    expect(endpointsToName({ ...base, NO_PROXY: "*", GITHUB_API_URL: "https://10.1.2.3" })).toEqual(
      [],
    );
    expect(
      endpointsToName({
        ...base,
        NO_PROXY: "fd00::9,[fd00::9]",
        ANTHROPIC_BASE_URL: "http://[fd00::9]:8080",
      }),
    ).toEqual([]);
  });

  it("names an address inside a range, at the endpoint's own or the scheme's port, and the IPv6 form Node lacks", () => {
    expect(
      endpointsToName({
        ...base,
        no_proxy: "10.0.0.0/8",
        ANTHROPIC_BEDROCK_BASE_URL: "https://10.9.9.9",
      }),
    ).toEqual(["10.9.9.9"]);
    expect(
      endpointsToName({
        ...base,
        NO_PROXY: "10.1.2.3:8443",
        OPENAI_BASE_URL: "https://10.1.2.3:8443/v1",
      }),
    ).toEqual([]);
    expect(
      endpointsToName({
        ...base,
        NO_PROXY: "10.1.2.3:8443",
        OPENAI_BASE_URL: "https://10.1.2.3/v1",
      }),
    ).toEqual([]);
    expect(
      endpointsToName({
        ...base,
        NO_PROXY: "fd00::9",
        ANTHROPIC_VERTEX_BASE_URL: "https://[FD00::9]",
      }),
    ).toEqual(["[fd00::9]"]);
  });
});
