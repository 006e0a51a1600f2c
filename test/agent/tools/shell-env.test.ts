import { describe, expect, it } from "vitest";
import { buildShellEnv, looksLikeSecret } from "../../../src/agent/tools/shell-env.js";

const source = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/bot",
  LANG: "C.UTF-8",
  GITHUB_TOKEN: "ghs_abcdefghijklmnopqrstuvwxyz0123",
  ANTHROPIC_API_KEY: "sk-ant-api03-secret",
  PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
  WEBHOOK_SECRET: "hush",
  NODE_OPTIONS: "--require /app/inject.js",
  AWS_SECRET_ACCESS_KEY: "abc",
};

describe("buildShellEnv", () => {
  it("keeps allowlisted variables and adds non-interactive settings", () => {
    const env = buildShellEnv(source);
    expect(env.PATH).toBe("/usr/bin:/bin");
    expect(env.HOME).toBe("/home/bot");
    expect(env.LANG).toBe("C.UTF-8");
    expect(env.GIT_TERMINAL_PROMPT).toBe("0");
    expect(env.PAGER).toBe("cat");
    expect(env.GIT_PAGER).toBe("cat");
    expect(env.NO_COLOR).toBe("1");
  });

  it("keeps every variable that names the host's CA bundle, as the host's trust reads them", () => {
    // Spelled out rather than read from sandbox/trust/ca-variables.ts, so that a name dropped there fails here.
    const names = [
      "NODE_EXTRA_CA_CERTS",
      "SSL_CERT_FILE",
      "SSL_CERT_DIR",
      "REQUESTS_CA_BUNDLE",
      "CURL_CA_BUNDLE",
      "GIT_SSL_CAINFO",
      "GIT_SSL_CAPATH",
      "PIP_CERT",
      "AWS_CA_BUNDLE",
    ];
    const env = buildShellEnv(
      Object.fromEntries(names.map((name) => [name, `/etc/ca/${name}.pem`])),
    );
    for (const name of names) expect(env[name]).toBe(`/etc/ca/${name}.pem`);
  });

  it("passes nothing outside the allowlist", () => {
    const env = buildShellEnv(source);
    for (const name of [
      "GITHUB_TOKEN",
      "ANTHROPIC_API_KEY",
      "PRIVATE_KEY",
      "WEBHOOK_SECRET",
      "NODE_OPTIONS",
      "AWS_SECRET_ACCESS_KEY",
    ]) {
      expect(env).not.toHaveProperty(name);
    }
    const values = Object.values(env).join("\n");
    expect(values).not.toContain("ghs_");
    expect(values).not.toContain("sk-ant-");
    expect(values).not.toContain("BEGIN");
  });

  it("drops allowlisted variables whose value looks like a secret", () => {
    const env = buildShellEnv({
      PATH: "/bin",
      HOME: "ghp_abcdefghijklmnopqrstuvwxyz0123",
      HTTPS_PROXY: "http://user:hunter2@proxy:8080",
      HTTP_PROXY: "http://proxy:8080",
      GIT_AUTHOR_NAME: "github_pat_11ABC",
    });
    expect(env).not.toHaveProperty("HOME");
    expect(env).not.toHaveProperty("HTTPS_PROXY");
    expect(env).not.toHaveProperty("GIT_AUTHOR_NAME");
    expect(env.HTTP_PROXY).toBe("http://proxy:8080");
  });

  it("adds extra variables last, still without secrets", () => {
    const env = buildShellEnv({ PATH: "/bin" }, { HOME: "/tmp/job-home", TOKEN: "sk-ant-xyz" });
    expect(env.HOME).toBe("/tmp/job-home");
    expect(env).not.toHaveProperty("TOKEN");
  });

  it("falls back to a standard PATH", () => {
    expect(buildShellEnv({}).PATH).toContain("/usr/bin");
  });

  it("recognises common credential shapes", () => {
    expect(looksLikeSecret("ghp_0123456789abcdefghij")).toBe(true);
    expect(looksLikeSecret("xx sk-ant-api03 yy")).toBe(true);
    expect(looksLikeSecret("AKIAABCDEFGHIJKLMNOP")).toBe(true);
    expect(looksLikeSecret("/usr/local/bin")).toBe(false);
    expect(looksLikeSecret("en_US.UTF-8")).toBe(false);
  });

  it("gives the same verdicts when asked again, past the number it keeps", () => {
    const values = Array.from({ length: 1_200 }, (_, i) =>
      i % 3 === 0 ? `ghp_${String(i).padStart(20, "0")}` : `/opt/tool-${i}/bin`,
    );
    const first = values.map((value) => looksLikeSecret(value));
    expect(first.filter(Boolean)).toHaveLength(400);
    expect(values.map((value) => looksLikeSecret(value))).toEqual(first);
    expect([...values].reverse().map((value) => looksLikeSecret(value))).toEqual(
      [...first].reverse(),
    );
  });
});
