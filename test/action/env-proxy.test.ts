import { describe, expect, it } from "vitest";
import { envProxyEnv, needsEnvProxyRestart, supportsEnvProxy } from "../../src/action/env-proxy.js";

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
    const expected = "corp.test,.internal,ghe.corp.test,localhost,127.0.0.1,::1";
    expect([env.NO_PROXY, env.no_proxy]).toEqual([expected, expected]);
    expect(envProxyEnv({ HTTP_PROXY: "http://p" }).NO_PROXY).toBe("localhost,127.0.0.1,::1");
  });
});
