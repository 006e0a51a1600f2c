import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type NpmConfig, retryDelaysMs, toFetchOptions } from "../../../src/deps/registry/npmrc.js";
import { createRegistryClient } from "../../../src/deps/registry/registry.js";

/**
 * A registry that drops connections (a kept-alive socket closed under the
 * request, a proxy's reset): the client asks again as npm does, a bounded
 * number of times, and .npmrc's fetch-retries keys change that. Found as a
 * tarball fetch that failed once under load and left a bump PR without its
 * upstream notes, and as the advisories' POST (which npm's fetch never asks
 * again) that failed once in a clean-clone run and left a plan without its
 * security check.
 */

let server: Server | undefined;
afterEach(closeServer);

/** Closes this file's registry, kept-alive connections too. */
async function closeServer(): Promise<void> {
  const open = server;
  server = undefined;
  if (!open) return;
  open.closeAllConnections();
  await new Promise((done) => open.close(done));
}

const ADVISORIES = "/-/npm/v1/security/advisories/bulk";
const ADVISORY = { id: 7, title: "fx runs code", severity: "high", vulnerable_versions: "<1.0.1" };

/** Resets the first `resets` requests for each path, then answers (`status` for the advisories). */
async function flakyRegistry(resets: number, status = 200) {
  const seen = new Map<string, number>();
  server = createServer((req, res) => {
    const path = req.url ?? "";
    const count = (seen.get(path) ?? 0) + 1;
    seen.set(path, count);
    if (count <= resets) {
      req.socket.destroy();
      return;
    }
    if (path === ADVISORIES) {
      res
        .writeHead(status, { "content-type": "application/json" })
        .end(JSON.stringify({ fx: [ADVISORY] }));
      return;
    }
    if (path.endsWith(".tgz")) {
      res.writeHead(200, { "content-type": "application/octet-stream" }).end("tarball bytes");
      return;
    }
    const base = `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`;
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        name: "fx",
        "dist-tags": { latest: "1.0.0" },
        versions: { "1.0.0": { version: "1.0.0", dist: { tarball: `${base}/fx/-/fx-1.0.0.tgz` } } },
      }),
    );
  });
  await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
  const registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { registry, seen };
}

const config = (registry: string, options: Record<string, string> = {}): NpmConfig => ({
  registry,
  options: { "fetch-retry-mintimeout": "5", ...options },
  referencedEnv: [],
});

describe("registry requests on a connection that drops", () => {
  it("ask again, for the packument and the tarball alike", async () => {
    const { registry, seen } = await flakyRegistry(2);
    const client = createRegistryClient({ npm: config(registry) });
    const tarball = await client.tarball("fx", "1.0.0");
    expect(tarball.toString()).toBe("tarball bytes");
    expect(Object.fromEntries(seen)).toEqual({ "/fx": 3, "/fx/-/fx-1.0.0.tgz": 3 });
  });

  it("give up after npm's two more tries, with the reason", async () => {
    const { registry, seen } = await flakyRegistry(10);
    const client = createRegistryClient({ npm: config(registry) });
    await expect(client.packument("fx")).rejects.toThrow(/fx: .*(ECONNRESET|socket hang up)/);
    expect(seen.get("/fx")).toBe(3);
  });

  it("take .npmrc's fetch-retries, zero included", async () => {
    const { registry, seen } = await flakyRegistry(1);
    const client = createRegistryClient({ npm: config(registry, { "fetch-retries": "0" }) });
    await expect(client.packument("fx")).rejects.toThrow(/ECONNRESET|socket hang up/);
    expect(seen.get("/fx")).toBe(1);
  });

  it("ask again for the advisories, a POST, which npm's fetch never asks again", async () => {
    const { registry, seen } = await flakyRegistry(2);
    const client = createRegistryClient({ npm: config(registry) });
    expect(await client.advisories({ fx: ["1.0.0"] })).toEqual({ fx: [ADVISORY] });
    expect(seen.get(ADVISORIES)).toBe(3);
  });

  it("give up on the advisories after as many tries, and ask once for an answer that stays", async () => {
    const dropping = await flakyRegistry(10);
    const client = createRegistryClient({ npm: config(dropping.registry) });
    await expect(client.advisories({ fx: ["1.0.0"] })).rejects.toThrow(
      /the advisory endpoint of .* failed: .*(ECONNRESET|socket hang up)/,
    );
    expect(dropping.seen.get(ADVISORIES)).toBe(3);
    const once = createRegistryClient({ npm: config(dropping.registry, { "fetch-retries": "0" }) });
    await expect(once.advisories({ fx: ["1.0.0"] })).rejects.toThrow(/advisory endpoint/);
    expect(dropping.seen.get(ADVISORIES)).toBe(4);
  });

  it("ask the advisories again after a 5xx, not after a 4xx", async () => {
    for (const [status, tries] of [
      [503, 3],
      [405, 1],
    ] as const) {
      const { registry, seen } = await flakyRegistry(0, status);
      const client = createRegistryClient({ npm: config(registry) });
      await expect(client.advisories({ fx: ["1.0.0"] })).rejects.toThrow(String(status));
      expect(seen.get(ADVISORIES)).toBe(tries);
      await closeServer();
    }
  });

  it("wait npm's way, with shorter defaults, and read each key", () => {
    expect(toFetchOptions(config("http://r/", {})).retry).toEqual({
      retries: 2,
      factor: 4,
      minTimeout: 5,
      maxTimeout: 8000,
    });
    const set = toFetchOptions({
      registry: "http://r/",
      options: {
        "fetch-retries": "5",
        "fetch-retry-factor": "10",
        "fetch-retry-mintimeout": "10000",
        "fetch-retry-maxtimeout": "60000",
      },
      referencedEnv: [],
    });
    expect(set.retry).toEqual({ retries: 5, factor: 10, minTimeout: 10000, maxTimeout: 60000 });
    // The same waits for the request npm's fetch does not retry (the advisories' POST).
    expect(retryDelaysMs(set)).toEqual([10000, 60000, 60000, 60000, 60000]);
    expect(retryDelaysMs(toFetchOptions(config("http://r/")))).toEqual([5, 20]);
    expect(set).not.toHaveProperty("fetch-retries");
    // Nonsense keeps the default rather than turning retries off.
    expect(
      toFetchOptions({
        registry: "http://r/",
        options: { "fetch-retries": "x" },
        referencedEnv: [],
      }).retry,
    ).toMatchObject({ retries: 2 });
  });
});
