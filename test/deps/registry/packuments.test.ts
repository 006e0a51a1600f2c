import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { NpmConfig } from "../../../src/deps/registry/npmrc.js";
import { parsePackument } from "../../../src/deps/registry/packument.js";
import { createRegistryClient, type FetchDocument } from "../../../src/deps/registry/registry.js";

/**
 * The registry client's packuments (issue #28): one request per name and
 * kind however many callers ask, a bound on the requests under way, the
 * abbreviated document where the registry has one, and every document cut
 * down to what the plan reads as soon as it is parsed.
 */

const npm: NpmConfig = {
  registry: "http://registry.invalid/",
  options: {},
  referencedEnv: [],
};

const FULL = "application/json";
const ABBREVIATED = "application/vnd.npm.install-v1+json; charset=utf-8";

function doc(name: string, full: boolean): Record<string, unknown> {
  return {
    name,
    "dist-tags": { latest: "1.1.0" },
    versions: {
      "1.0.0": { name, version: "1.0.0", dist: { tarball: `http://t/${name}-1.0.0.tgz` } },
      "1.1.0": {
        name,
        version: "1.1.0",
        dist: { tarball: `http://t/${name}-1.1.0.tgz` },
        ...(full ? { repository: "github:example/x", scripts: { postinstall: "x" } } : {}),
      },
    },
    ...(full
      ? { time: { "1.0.0": "2026-01-01T00:00:00.000Z", "1.1.0": "2026-02-01T00:00:00.000Z" } }
      : {}),
  };
}

/** A registry in memory: answers after a tick, records each request and how many run at once. */
function fakeRegistry(options: { abbreviated?: boolean } = {}) {
  const requests: Array<{ name: string; accept: string }> = [];
  let running = 0;
  let most = 0;
  const fetchDocument: FetchDocument = async (url, opts) => {
    const name = decodeURIComponent(url.slice(1));
    const accept = (opts.headers as { accept: string }).accept;
    requests.push({ name, accept });
    running += 1;
    most = Math.max(most, running);
    await new Promise((done) => setTimeout(done, 5));
    running -= 1;
    const abbreviated = options.abbreviated !== false && accept.includes("install-v1");
    return {
      contentType: abbreviated ? ABBREVIATED : FULL,
      body: Buffer.from(JSON.stringify(doc(name, !abbreviated))),
    };
  };
  return { fetchDocument, requests, most: () => most };
}

describe("packuments from the registry client", () => {
  it("keeps at most 16 requests under way by default, or the bound it is given", async () => {
    const names = Array.from({ length: 60 }, (_, i) => `pkg-${i}`);
    const fake = fakeRegistry();
    const client = createRegistryClient({ npm, fetchDocument: fake.fetchDocument });
    await Promise.all(names.map((n) => client.packument(n)));
    expect(fake.requests).toHaveLength(60);
    expect(fake.most()).toBe(16);

    const four = fakeRegistry();
    const bounded = createRegistryClient({
      npm,
      fetchDocument: four.fetchDocument,
      concurrency: 4,
    });
    await Promise.all(names.map((n) => bounded.abbreviatedPackument?.(n)));
    expect(four.most()).toBe(4);
  });

  it("fetches each name once per kind, however many ask at once", async () => {
    const fake = fakeRegistry();
    const client = createRegistryClient({ npm, fetchDocument: fake.fetchDocument });
    const asked = await Promise.all([
      client.abbreviatedPackument?.("a"),
      client.abbreviatedPackument?.("a"),
      client.packument("a"),
      client.packument("a"),
      client.abbreviatedPackument?.("a"),
    ]);
    expect(fake.requests.map((r) => `${r.name} ${r.accept.split(";")[0]}`)).toEqual([
      "a application/vnd.npm.install-v1+json",
      "a application/json",
    ]);
    expect(asked[0]?.abbreviated).toBe(true);
    expect(asked[2]?.abbreviated).toBeUndefined();
    expect(asked[2]?.time["1.1.0"]).toBe("2026-02-01T00:00:00.000Z");
    // Once the full document is here, it answers the abbreviated question too.
    expect(await client.abbreviatedPackument?.("b")).toMatchObject({ abbreviated: true });
    expect(await client.packument("c")).not.toHaveProperty("abbreviated");
    expect(await client.abbreviatedPackument?.("c")).not.toHaveProperty("abbreviated");
    expect(fake.requests.map((r) => r.name)).toEqual(["a", "a", "b", "c"]);
    expect(client.stats?.()).toMatchObject({ documents: 4, abbreviated: 2, names: 3 });
  });

  it("asks no second time when the registry answers the abbreviated request in full", async () => {
    const fake = fakeRegistry({ abbreviated: false });
    const client = createRegistryClient({ npm, fetchDocument: fake.fetchDocument });
    const first = await client.abbreviatedPackument?.("a");
    expect(first?.abbreviated).toBeUndefined();
    expect((await client.packument("a")).time["1.0.0"]).toBe("2026-01-01T00:00:00.000Z");
    expect(fake.requests).toHaveLength(1);
  });

  it("keeps what the plan reads of each version, and nothing else", () => {
    const body = {
      name: "big",
      "dist-tags": { latest: "2.0.0" },
      readme: "x".repeat(10_000),
      maintainers: [{ name: "m" }],
      repository: { type: "git", url: "git+https://github.com/example/big.git" },
      time: { created: "2025-01-01T00:00:00.000Z", "2.0.0": "2026-03-01T00:00:00.000Z" },
      versions: {
        "2.0.0": {
          name: "big",
          version: "2.0.0",
          description: "big",
          deprecated: "use small",
          dependencies: { a: "^1.0.0" },
          devDependencies: { b: "^1.0.0" },
          scripts: { test: "vitest", postinstall: "node setup.js" },
          hasInstallScript: true,
          engines: { node: ">=20", npm: ">=10" },
          peerDependencies: { react: "^19.0.0" },
          dist: { tarball: "http://t/big-2.0.0.tgz", integrity: "sha512-x", fileCount: 3 },
          repository: { type: "git", url: "https://gitlab.com/example/big", directory: "pkg" },
          _npmUser: { name: "m" },
        },
        "1.5.0": {
          version: "1.5.0",
          _npmUser: { name: "GitHub Actions", trustedPublisher: { id: "github" } },
          dist: {
            attestations: { provenance: { predicateType: "https://slsa.dev/provenance/v1" } },
          },
        },
        "1.0.0": {
          version: "1.0.0",
          // Wrong types are dropped one field at a time, as before.
          engines: "node 20",
          peerDependencies: { react: 18 },
          deprecated: 1,
          dist: { tarball: 5, attestations: { provenance: {} } },
          repository: { url: 7 },
        },
      },
    };
    const packument = parsePackument(Buffer.from(JSON.stringify(body)), false);
    expect(packument).toEqual({
      name: "big",
      "dist-tags": { latest: "2.0.0" },
      repository: { url: "git+https://github.com/example/big.git" },
      time: { created: "2025-01-01T00:00:00.000Z", "2.0.0": "2026-03-01T00:00:00.000Z" },
      versions: {
        "2.0.0": {
          version: "2.0.0",
          deprecated: "use small",
          scripts: { postinstall: "node setup.js" },
          hasInstallScript: true,
          engines: { node: ">=20" },
          peerDependencies: { react: "^19.0.0" },
          dist: { tarball: "http://t/big-2.0.0.tgz", integrity: "sha512-x" },
          repository: { url: "https://gitlab.com/example/big", directory: "pkg" },
        },
        // The trust evidence pnpm's trustPolicy weighs: the stronger one.
        "1.5.0": { version: "1.5.0", dist: {}, trust: "trustedPublisher" },
        "1.0.0": { version: "1.0.0", dist: {}, trust: "provenance" },
      },
    });
    expect(parsePackument(Buffer.from(JSON.stringify(body)), true)?.abbreviated).toBe(true);
    // Not a packument: a version without its version, a time that is not a map of strings, not JSON.
    const noVersion = { ...body, versions: { "1.0.0": { name: "big" } } };
    expect(parsePackument(Buffer.from(JSON.stringify(noVersion)), false)).toBeUndefined();
    const badTime = { ...body, time: { unpublished: { time: "x" } } };
    expect(parsePackument(Buffer.from(JSON.stringify(badTime)), false)).toBeUndefined();
    expect(parsePackument(Buffer.from("<html>"), false)).toBeUndefined();
  });
});

describe("many packuments under one signal", () => {
  it("asks 16 at a time through npm-registry-fetch without Node's listener-leak warning", async () => {
    // A loopback registry that answers each packument after a moment, so requests overlap.
    const server = createServer((req, res) => {
      const name = decodeURIComponent((req.url ?? "/").slice(1));
      setTimeout(() => {
        res.writeHead(200, { "content-type": FULL });
        res.end(JSON.stringify(doc(name, true)));
      }, 20);
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const client = createRegistryClient({
        npm: { ...npm, registry: `http://127.0.0.1:${port}/` },
      });
      const { signal } = new AbortController();
      const names = Array.from({ length: 40 }, (_, i) => `pkg-${i}`);
      const docs = await Promise.all(names.map((name) => client.packument(name, signal)));
      expect(docs.map((d) => d.name)).toEqual(names);
      // Warnings are emitted on the next tick.
      await new Promise((done) => setImmediate(done));
      expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await new Promise((done) => server.close(done));
    }
  });
});
