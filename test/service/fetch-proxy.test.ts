import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getGlobalDispatcher, setGlobalDispatcher } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { routeFetchThroughProxy } from "../../src/service/fetch-proxy.js";

/**
 * The App's and the CLI's own fetch on a company network: through the
 * proxy the environment names, except where NO_PROXY (names, addresses,
 * ranges) or loopback says to go direct. A proxy on 127.0.0.1 answers
 * every request itself and records it; the "internal" server listens on
 * 127.0.0.2, which is loopback to the kernel but not one of the loopback
 * names patchwright always exempts, so only a NO_PROXY range reaches it direct.
 */

const servers: Server[] = [];
let saved: ReturnType<typeof getGlobalDispatcher>;

beforeEach(() => {
  saved = getGlobalDispatcher();
});

afterEach(async () => {
  setGlobalDispatcher(saved);
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  }
});

async function listen(host: string, answer: string): Promise<string> {
  const server = createServer((_req, res) => res.end(answer));
  servers.push(server);
  server.listen(0, host);
  await once(server, "listening");
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

/** A proxy that records each CONNECT (undici tunnels plain http too) and answers inside the tunnel itself. */
async function proxyAnswering(asked: string[]): Promise<string> {
  const url = await listen("127.0.0.1", "via proxy");
  const server = servers.at(-1) as Server;
  server.on("connect", (req, socket) => {
    asked.push(`${req.headers["proxy-authorization"] ?? "-"} ${req.url}`);
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n", () =>
      server.emit("connection", socket),
    );
  });
  return url;
}

async function text(url: string): Promise<string> {
  return (await fetch(url)).text();
}

describe("routeFetchThroughProxy", () => {
  it("leaves fetch alone without a proxy", async () => {
    expect(await routeFetchThroughProxy({ NO_PROXY: "x" })).toBe(false);
    expect(getGlobalDispatcher()).toBe(saved);
  });

  it("goes direct for a NO_PROXY range and loopback, through the proxy (with its password) otherwise", async () => {
    const asked: string[] = [];
    const proxy = await proxyAnswering(asked);
    const internal = await listen("127.0.0.2", "direct");
    const local = await listen("127.0.0.1", "loopback");
    const withPassword = proxy.replace("http://", "http://corp:s3cret@");
    const env = { HTTP_PROXY: withPassword, NO_PROXY: "10.0.0.0/8, 127.0.0.0/8" };
    expect(await routeFetchThroughProxy(env)).toBe(true);
    expect(await text(`${internal}/a`)).toBe("direct");
    expect(await text(`${local}/b`)).toBe("loopback");
    expect(await text("http://192.0.2.10:8080/c")).toBe("via proxy");
    expect(asked).toEqual([
      `Basic ${Buffer.from("corp:s3cret").toString("base64")} 192.0.2.10:8080`,
    ]);
  });

  it("sends an address outside the NO_PROXY ranges to the proxy, loopback names excepted", async () => {
    const asked: string[] = [];
    const proxy = await proxyAnswering(asked);
    const internal = await listen("127.0.0.2", "direct");
    expect(await routeFetchThroughProxy({ HTTP_PROXY: proxy, NO_PROXY: "10.0.0.0/8" })).toBe(true);
    expect(await text(`${internal}/d`)).toBe("via proxy");
    expect(asked).toEqual([`- ${internal.replace("http://", "")}`]);
  });
});
