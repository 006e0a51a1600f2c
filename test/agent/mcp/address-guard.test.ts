import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { checkHost, type Resolve } from "../../../src/agent/mcp/address-guard.js";
import { guardedFetch } from "../../../src/agent/mcp/guarded-fetch.js";
import { startMcpServers } from "../../../src/agent/mcp/servers.js";
import { nonPublicKind } from "../../../src/sandbox/address-kind.js";
import { type FakeDocsServer, startDocsServer } from "../../helpers/mcp-http-server.js";
import { noSandbox } from "../../helpers/sandbox.js";
import { makeThrowawayCa, startInspectingProxy } from "../../helpers/tls-proxy.js";

/**
 * A repository's HTTP MCP server may not be on the host's own network: the
 * name is resolved (here by an injected resolver) and every address checked,
 * on each connection, and redirects are refused.
 */

/** A resolver answering from a table; each name's answers are used in turn (the last repeats). */
function resolver(table: Record<string, string[][]>): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        code: "ENOTFOUND",
      });
    const seen = calls.filter((c) => c === hostname).length;
    const answer = answers[Math.min(seen, answers.length) - 1] ?? [];
    return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

describe("nonPublicKind", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["10.0.0.5", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["169.254.169.254", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fd00::1", "unique-local"],
    ["fc12:3456::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::ffff:c0a8:1", "private"],
    ["[::ffff:10.0.0.1]", "private"],
    ["2002:a00:1::1", "private"],
    ["ff02::1", "multicast"],
  ])("%s is %s", (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
  });

  it.each([
    "8.8.8.8",
    "93.184.216.34",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700::6810:85e5",
    "::ffff:8.8.8.8",
  ])("%s is public", (address) => {
    expect(nonPublicKind(address)).toBeUndefined();
  });
});

describe("checkHost", () => {
  it("refuses a public-looking name that resolves to a metadata, private or IPv6 local address", async () => {
    const resolve = resolver({
      "metadata.example.com": [["169.254.169.254"]],
      "intranet.example.com": [["10.1.2.3"]],
      "mixed.example.com": [["93.184.216.34", "10.0.0.5"]],
      "v6.example.com": [["2606:4700::1", "fd00::5"]],
      "mapped.example.com": [["::ffff:127.0.0.1"]],
    });
    expect((await checkHost("metadata.example.com", resolve)).refused).toBe(
      "metadata.example.com resolves to 169.254.169.254, a link-local address",
    );
    expect((await checkHost("intranet.example.com", resolve)).refused).toMatch(
      /10\.1\.2\.3, a private/,
    );
    expect((await checkHost("mixed.example.com", resolve)).refused).toMatch(
      /10\.0\.0\.5, a private/,
    );
    expect((await checkHost("v6.example.com", resolve)).refused).toMatch(/fd00::5, a unique-local/);
    expect((await checkHost("mapped.example.com", resolve)).refused).toMatch(/a loopback/);
    expect((await checkHost("nowhere.example.com", resolve)).refused).toBe(
      "nowhere.example.com does not resolve (ENOTFOUND)",
    );
  });

  it("accepts a name whose every address is public, and gives them", async () => {
    const resolve = resolver({ "docs.example.com": [["93.184.216.34", "2606:4700::1"]] });
    expect(await checkHost("docs.example.com", resolve)).toEqual({
      addresses: [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:4700::1", family: 6 },
      ],
    });
  });

  it("checks an address literal without resolving it", async () => {
    const resolve = resolver({});
    expect((await checkHost("[::1]", resolve)).refused).toBe("::1 is a loopback address");
    expect((await checkHost("8.8.8.8", resolve)).addresses).toHaveLength(1);
    expect(resolve.calls).toEqual([]);
  });
});

describe("guardedFetch", () => {
  let docs: FakeDocsServer | undefined;
  let plain: Server | undefined;
  const hits: string[] = [];
  afterEach(async () => {
    await docs?.close();
    docs = undefined;
    if (plain) {
      plain.closeAllConnections();
      await new Promise((resolve) => plain?.close(resolve));
    }
    plain = undefined;
    hits.length = 0;
  });

  /** Treats the test's own loopback address as public, so a connection can succeed here. */
  const testAddressIsPublic = (address: string) =>
    address === "127.0.0.1" ? undefined : nonPublicKind(address);

  async function startPlain(): Promise<number> {
    plain = createServer((req, res) => {
      hits.push(req.url ?? "");
      if (req.url === "/mcp") {
        res.writeHead(307, { location: "http://127.0.0.1:9/elsewhere" }).end();
        return;
      }
      res.writeHead(200, { "content-type": "text/plain" }).end("elsewhere");
    });
    await new Promise<void>((resolve) => plain?.listen(0, "127.0.0.1", resolve));
    return (plain.address() as AddressInfo).port;
  }

  it("connects to the address its resolver checked, and an MCP session works through it", async () => {
    docs = await startDocsServer("docs-token-1");
    const port = new URL(docs.url).port;
    const resolve = resolver({ "docs.example.test": [["127.0.0.1"]] });
    const session = await startMcpServers(
      [
        {
          name: "docs",
          transport: "http",
          url: `http://docs.example.test:${port}/mcp`,
          headers: { authorization: "Bearer docs-token-1" },
          timeoutMs: 10_000,
          fetch: guardedFetch(resolve, testAddressIsPublic),
        },
      ],
      { root: "/nonexistent", env: {}, sandboxFor: () => noSandbox("/nonexistent") },
    );
    try {
      expect(session.failures).toEqual([]);
      expect(session.tools.map((t) => t.name)).toContain("mcp__docs__search_docs");
      expect(resolve.calls[0]).toBe("docs.example.test");
      expect(docs.authorizations.length).toBeGreaterThan(0);
    } finally {
      await session.close();
    }
  });

  it("refuses a connection when the name now resolves to the host's network (DNS rebinding)", async () => {
    const port = await startPlain();
    // The first answer passes the job's check; the connection's own lookup gets loopback.
    const resolve = resolver({ "rebind.example.test": [["93.184.216.34"], ["127.0.0.1"]] });
    expect((await checkHost("rebind.example.test", resolve)).refused).toBeUndefined();
    await expect(guardedFetch(resolve)(`http://rebind.example.test:${port}/page`)).rejects.toThrow(
      /refused to connect: rebind\.example\.test resolves to 127\.0\.0\.1, a loopback/,
    );
    expect(hits).toEqual([]);
  });

  it("does not follow a redirect", async () => {
    const port = await startPlain();
    const resolve = resolver({ "docs.example.test": [["127.0.0.1"]] });
    await expect(
      guardedFetch(resolve, testAddressIsPublic)(`http://docs.example.test:${port}/mcp`, {
        method: "POST",
        body: "{}",
        redirect: "manual",
      }),
    ).rejects.toThrow(/redirect to http:\/\/127\.0\.0\.1:9\/elsewhere; .*not followed/);
    expect(hits).toEqual(["/mcp"]);
  });

  it("sends the body and headers and streams the answer back", async () => {
    const port = await startPlain();
    const resolve = resolver({ "docs.example.test": [["127.0.0.1"]] });
    const response = await guardedFetch(
      resolve,
      testAddressIsPublic,
    )(`http://docs.example.test:${port}/page`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain");
    expect(await response.text()).toBe("elsewhere");
  });

  it("goes through the host's proxy on a company network, and still refuses the host's own network", async () => {
    docs = await startDocsServer("docs-token-2");
    const dir = await mkdtemp(join(tmpdir(), "pw-mcp-proxy-"));
    const ca = await makeThrowawayCa(dir);
    const password = "proxy-pass-51c2";
    const corp = await startInspectingProxy({
      ca,
      routes: { "mcp.vendor.test:443": new URL(docs.url).origin },
      credentials: { user: "corp", password },
    });
    const via = new URL(corp.url);
    via.username = "corp";
    via.password = password;
    const proxy = { https: via, noProxy: "", ca: [await readFile(ca.certPath, "utf8")] };
    // This machine resolves no public name (only the proxy does), and one name to a private address.
    const resolve = resolver({ "wiki.corp.test": [["10.0.0.7"]] });
    // node:http is wrapped, as an APM agent wraps it: this file imports nock, whose interceptor is on.
    expect(nock.isActive()).toBe(true);
    try {
      const session = await startMcpServers(
        [
          {
            name: "vendor",
            transport: "http",
            url: "https://mcp.vendor.test/mcp",
            headers: { authorization: "Bearer docs-token-2" },
            timeoutMs: 10_000,
            fetch: guardedFetch(resolve, nonPublicKind, proxy),
          },
        ],
        { root: "/nonexistent", env: {}, sandboxFor: () => noSandbox("/nonexistent") },
      );
      try {
        expect(session.failures).toEqual([]);
        const search = session.tools.find((t) => t.name === "mcp__vendor__search_docs");
        expect(search).toBeDefined();
      } finally {
        await session.close();
      }
      expect(corp.asked).toContain("mcp.vendor.test:443");
      expect(corp.refused).toBe(0);
      expect(docs.authorizations).toContain("Bearer docs-token-2");
      const asked = corp.asked.length;
      await expect(
        guardedFetch(resolve, nonPublicKind, proxy)("https://wiki.corp.test/mcp"),
      ).rejects.toThrow(/refused to connect: wiki\.corp\.test resolves to 10\.0\.0\.7, a private/);
      // NO_PROXY sends it direct, where the guarded lookup refuses the unresolved name.
      await expect(
        guardedFetch(resolve, nonPublicKind, { ...proxy, noProxy: ".vendor.test" })(
          "https://mcp.vendor.test/mcp",
        ),
      ).rejects.toThrow(/mcp\.vendor\.test does not resolve/);
      expect(corp.asked).toHaveLength(asked);
    } finally {
      await corp.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("gives up on a proxy that never answers the CONNECT when the request is aborted", async () => {
    const silent = createNetServer();
    const closed: Promise<void>[] = [];
    silent.on("connection", (socket) => {
      socket.on("error", () => {});
      // Read (and drop) the CONNECT, so the client's close is seen.
      socket.resume();
      closed.push(new Promise((done) => socket.on("close", () => done())));
    });
    await new Promise<void>((done) => silent.listen(0, "127.0.0.1", done));
    const { port } = silent.address() as AddressInfo;
    const proxy = { https: new URL(`http://127.0.0.1:${port}`), noProxy: "" };
    try {
      const started = performance.now();
      await expect(
        guardedFetch(
          resolver({}),
          nonPublicKind,
          proxy,
        )("https://mcp.vendor.test/mcp", {
          signal: AbortSignal.timeout(300),
        }),
      ).rejects.toThrow(/timed out|aborted/i);
      expect(performance.now() - started).toBeLessThan(5_000);
      // The connection to the proxy is closed, not left waiting.
      expect(closed).toHaveLength(1);
      await closed[0];
    } finally {
      await new Promise((done) => silent.close(done));
    }
  });
});
