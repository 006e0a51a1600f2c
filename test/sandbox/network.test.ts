import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findShell, runShellProcess } from "../../src/agent/shell-process.js";
import { checkTarget, startHostProxy } from "../../src/sandbox/host-proxy.js";
import { hostAllowed, networkPolicy, parseHostRule } from "../../src/sandbox/network.js";
import { sandboxFor } from "../helpers/sandbox.js";
import { makeTempDir } from "../helpers/temp-dir.js";

let servers: Server[] = [];
let allowed = 0;
let other = 0;

async function listen(text: string): Promise<number> {
  const server = createServer((_req, res) => res.end(text));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  allowed = await listen("ALLOWED-HOST");
  other = await listen("OTHER-HOST");
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  servers = [];
});

async function curl(network: Parameters<typeof networkPolicy>[0], url: string) {
  const workspace = await makeTempDir();
  const sandbox = await sandboxFor(workspace, { network });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  try {
    const outcome = await runShellProcess(
      await findShell(env.PATH),
      `curl -sS -m 5 ${url} 2>&1; echo " exit=$?"`,
      30,
      { cwd: workspace, env, signal: new AbortController().signal, sandbox },
    );
    return outcome.stdout;
  } finally {
    await sandbox.close();
  }
}

describe("the sandbox's network", () => {
  it("with none, has pnpm warn of stale node_modules before a script instead of installing, and no tool retry", async () => {
    const seen = async (network: Parameters<typeof networkPolicy>[0]) => {
      const workspace = await makeTempDir();
      const sandbox = await sandboxFor(workspace, { network });
      try {
        const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
        const command =
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell expands these
          'echo "verify=${pnpm_config_verify_deps_before_run:-unset} retries=${npm_config_fetch_retries:-unset},${pnpm_config_fetch_retries:-unset},${YARN_HTTP_RETRY:-unset}"';
        const outcome = await runShellProcess(await findShell(env.PATH), command, 30, {
          cwd: workspace,
          env,
          signal: new AbortController().signal,
          sandbox,
        });
        return outcome.stdout.trim();
      } finally {
        await sandbox.close();
      }
    };
    expect(await seen("off")).toBe("verify=warn retries=0,0,0");
    // Where an install can reach the registry, the tools' own settings stand.
    expect(await seen("on")).toBe("verify=unset retries=unset,unset,unset");
  });

  it("is off by default: not even the host's loopback", async () => {
    expect(await curl("off", `http://127.0.0.1:${allowed}/`)).not.toContain("ALLOWED-HOST");
  });

  it("is the host's when on", async () => {
    expect(await curl("on", `http://127.0.0.1:${allowed}/`)).toContain("ALLOWED-HOST");
  });

  it("reaches listed hosts only, through the proxy, and says why the others are refused", async () => {
    const hosts = [`127.0.0.1:${allowed}`];
    expect(await curl(hosts, `http://127.0.0.1:${allowed}/`)).toContain("ALLOWED-HOST");
    const refused = await curl(hosts, `http://127.0.0.1:${other}/`);
    expect(refused).not.toContain("OTHER-HOST");
    expect(refused).toContain("not in this repository's network allow-list");
  });
});

describe("the network public", () => {
  it("reaches a host the setting names, and not the server's own loopback services", async () => {
    const setting = ["*", `127.0.0.1:${allowed}`];
    expect(await curl(setting, `http://127.0.0.1:${allowed}/`)).toContain("ALLOWED-HOST");
    const refused = await curl("public", `http://127.0.0.1:${other}/`);
    expect(refused).not.toContain("OTHER-HOST");
    expect(refused).toContain("of this machine or of a private network");
  });

  it("takes any public address, and no address of this machine or a private network unless named", async () => {
    const dns: Record<string, string[]> = {
      "registry.npmjs.org": ["104.16.0.35"],
      "redis.compose.internal": ["172.18.0.3"],
      "rebound.example": ["127.0.0.1"],
      "metadata.example": ["169.254.169.254"],
      "lan.example": ["192.168.1.20"],
      "cgnat.example": ["100.64.0.9"],
      "ula.example": ["fd12:3456::1"],
      "mixed.example": ["10.0.0.8", "93.184.215.14"],
      "registry.corp": ["10.1.2.3"],
    };
    const resolveName = async (name: string) => dns[name] ?? [];
    const policy = { rules: [parseHostRule("registry.corp")], anyPublic: true };
    const check = (host: string, port = 443) => checkTarget(policy, host, port, resolveName);
    expect(await check("registry.npmjs.org")).toEqual({ ok: true, address: "104.16.0.35" });
    // Only the public address of a name with both is dialled.
    expect(await check("mixed.example")).toEqual({ ok: true, address: "93.184.215.14" });
    // A company registry the config names may sit on a private network.
    expect(await check("registry.corp")).toEqual({ ok: true, address: "10.1.2.3" });
    for (const host of [
      "redis.compose.internal",
      "rebound.example",
      "metadata.example",
      "lan.example",
      "cgnat.example",
      "ula.example",
      "127.0.0.1",
      "169.254.169.254",
      "10.0.0.1",
      "[::1]",
    ]) {
      const target = await check(host, 6379);
      expect(target, host).toMatchObject({ ok: false });
    }
    expect(await check("nowhere.example")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("did not resolve"),
    });
    // Without public hosts, a host no rule names is refused before any lookup.
    const closed = await checkTarget(
      { rules: policy.rules, anyPublic: false },
      "registry.npmjs.org",
      443,
      resolveName,
    );
    expect(closed).toMatchObject({ ok: false, reason: expect.stringContaining("allow-list") });
  });
});

describe("the allow-list proxy", () => {
  /**
   * CONNECT through the proxy's socket, as curl inside the sandbox does; the
   * status code. Written on a bare socket: an HTTP client request could meet
   * an interceptor another file of the shared worker left on (seen once:
   * nock's, which cannot take a unix socket).
   */
  function connectThrough(socket: string, authority: string): Promise<string> {
    return new Promise((done, fail) => {
      const tunnel = connect(socket, () =>
        tunnel.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
      );
      let head = "";
      tunnel.on("data", (chunk: Buffer) => {
        head += chunk.toString("latin1");
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
        if (status) {
          tunnel.destroy();
          done(status[1] ?? "");
        }
      });
      tunnel.on("error", fail);
      tunnel.on("close", () => fail(new Error(`closed before a status line: ${head}`)));
    });
  }

  it("refuses an allowed name that resolves to this machine, unless the rule names such a target", async () => {
    const dir = await makeTempDir();
    const socket = join(dir, "proxy.sock");
    // Someone controls the DNS of an allowed name and points it at the server's port.
    const resolveName = async (name: string) =>
      name === "registry.example.test" ? ["127.0.0.1"] : ["203.0.113.7"];
    const proxy = await startHostProxy(
      socket,
      ["registry.example.test", `127.0.0.1:${allowed}`].map(parseHostRule),
      { resolveName },
    );
    try {
      expect(await connectThrough(socket, `registry.example.test:${allowed}`)).toBe("403");
      expect(await connectThrough(socket, `127.0.0.1:${allowed}`)).toBe("200");
      expect(await connectThrough(socket, `127.0.0.1:${other}`)).toBe("403");
      expect(await connectThrough(socket, "169.254.169.254:80")).toBe("403");
    } finally {
      await proxy.close();
    }
  });
});

describe("host rules", () => {
  it("match names, subdomains and ports", () => {
    const rules = ["registry.npmjs.org", "*.github.com", "localhost:4873"].map(parseHostRule);
    expect(hostAllowed(rules, "registry.npmjs.org", 443)).toBe(true);
    expect(hostAllowed(rules, "REGISTRY.npmjs.org.", 443)).toBe(true);
    expect(hostAllowed(rules, "evil-registry.npmjs.org", 443)).toBe(false);
    expect(hostAllowed(rules, "api.github.com", 443)).toBe(true);
    expect(hostAllowed(rules, "github.com", 443)).toBe(false);
    expect(hostAllowed(rules, "notgithub.com", 443)).toBe(false);
    expect(hostAllowed(rules, "localhost", 4873)).toBe(true);
    expect(hostAllowed(rules, "localhost", 3000)).toBe(false);
  });

  it("turn the config's setting into a policy", () => {
    expect(networkPolicy(true)).toEqual({ kind: "on" });
    expect(networkPolicy("off")).toEqual({ kind: "off" });
    expect(networkPolicy([])).toEqual({ kind: "off" });
    expect(networkPolicy(["[::1]:80"])).toEqual({
      kind: "hosts",
      hosts: [{ host: "::1", wildcard: false, port: 80 }],
    });
    expect(networkPolicy("public")).toEqual({ kind: "hosts", hosts: [], anyPublic: true });
    expect(networkPolicy(["*", "localhost:4873"])).toEqual({
      kind: "hosts",
      hosts: [{ host: "localhost", wildcard: false, port: 4873 }],
      anyPublic: true,
    });
  });
});
