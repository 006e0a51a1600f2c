import { describe, expect, it } from "vitest";
import {
  authConfig,
  basicAuthHeader,
  redactToken,
  splitCredentials,
} from "../../src/git/credentials.js";
import { buildGitEnv } from "../../src/git/git-client.js";
import { mirrorKey } from "../../src/git/mirror/mirror.js";

describe("splitCredentials", () => {
  it("moves a password or token-as-user out of the URL", () => {
    expect(splitCredentials("https://x-access-token:s3cr%40t@github.com/o/r.git")).toEqual({
      url: "https://github.com/o/r.git",
      token: "s3cr@t",
    });
    expect(splitCredentials("https://ghp_abc@github.com/o/r")).toEqual({
      url: "https://github.com/o/r",
      token: "ghp_abc",
    });
  });

  it("leaves URLs without credentials and scp-like addresses alone", () => {
    expect(splitCredentials("https://github.com/o/r.git")).toEqual({
      url: "https://github.com/o/r.git",
      token: undefined,
    });
    expect(splitCredentials("git@github.com:o/r.git").url).toBe("git@github.com:o/r.git");
  });
});

describe("authConfig", () => {
  it("scopes the header to the remote's origin and skips non-HTTP remotes", () => {
    expect(authConfig("https://ghe.example.com:8443/o/r.git", "T")).toEqual([
      ["http.https://ghe.example.com:8443/.extraHeader", basicAuthHeader("T")],
    ]);
    expect(basicAuthHeader("T")).toBe(
      `Authorization: Basic ${Buffer.from("x-access-token:T").toString("base64")}`,
    );
    expect(authConfig("file:///tmp/r.git", "T")).toEqual([]);
  });

  it("redacts the token and its Basic form", () => {
    const basic = Buffer.from("x-access-token:T0K").toString("base64");
    expect(redactToken(`url T0K header ${basic}`, "T0K")).toBe("url *** header ***");
  });
});

describe("buildGitEnv", () => {
  it("passes config through the environment, drops variables that redirect git", () => {
    const env = buildGitEnv({
      env: { PATH: "/bin", GIT_DIR: "/elsewhere", GIT_INDEX_FILE: "/x", PAGER: "less" },
      auth: { url: "https://github.com/o/r.git", token: "T" },
    });
    expect(env.PATH).toBe("/bin");
    expect(env.GIT_DIR).toBeUndefined();
    expect(env.GIT_INDEX_FILE).toBeUndefined();
    expect(env.PAGER).toBeUndefined();
    expect(env.GIT_TERMINAL_PROMPT).toBe("0");
    const keys = Array.from({ length: Number(env.GIT_CONFIG_COUNT) }, (_, i) => [
      env[`GIT_CONFIG_KEY_${i}`],
      env[`GIT_CONFIG_VALUE_${i}`],
    ]);
    expect(keys).toEqual([
      ["core.hooksPath", "/dev/null"],
      ["core.fsmonitor", "false"],
      ["credential.helper", ""],
      ["maintenance.auto", "false"],
      ["http.lowSpeedLimit", "1"],
      ["http.lowSpeedTime", "120"],
      ["http.https://github.com/.extraHeader", expect.stringContaining("Authorization: Basic ")],
    ]);
    // No global or system config: a workspace or the agent could have written one.
    expect(env.GIT_CONFIG_GLOBAL).toBe("/dev/null");
    expect(env.GIT_CONFIG_NOSYSTEM).toBe("1");
  });
});

describe("mirrorKey", () => {
  it("is readable, stable, and ignores nothing that distinguishes repositories", () => {
    const a = mirrorKey("https://github.com/octo/repo.git");
    expect(a).toMatch(/^github\.com-octo-repo-[0-9a-f]{12}$/);
    expect(mirrorKey("https://github.com/octo/repo.git")).toBe(a);
    expect(mirrorKey("https://github.com/octo/other.git")).not.toBe(a);
    expect(mirrorKey("https://ghe.example.com/octo/repo.git")).not.toBe(a);
  });
});
