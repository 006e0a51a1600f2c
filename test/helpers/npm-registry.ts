import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { satisfies } from "semver";
import { runServer } from "verdaccio";
import { deprecateVersion, publishPackage } from "./npm-publish.js";

/**
 * A real npm registry (verdaccio) on 127.0.0.1 with its own storage and no
 * uplinks, so nothing ever reaches the public registry. Fixture packages are
 * published and deprecated with the registry's own requests (npm-publish.ts);
 * publish times can be moved back in the stored packument, since a test
 * cannot wait days for a release to age.
 * Verdaccio has no advisory database, so a small front server answers the
 * bulk advisory route (`npm audit`'s) from what the test sets, and passes
 * every other request through unchanged.
 */

export interface FixturePackage {
  name: string;
  version: string;
  /** Files besides package.json; default an index.js exporting the version. */
  files?: Record<string, string>;
  /** Extra package.json fields (scripts, repository, dependencies...). */
  manifest?: Record<string, unknown>;
}

export interface FixtureAdvisory {
  id: number;
  title: string;
  severity: "low" | "moderate" | "high" | "critical";
  vulnerable_versions: string;
  url?: string;
}

export interface LocalRegistry {
  /** With a trailing slash. */
  url: string;
  storage: string;
  /** An npm userconfig holding the publisher's token. */
  userconfig: string;
  /** The publisher's token (packages under @private/ need it to be read). */
  token: string;
  /** Environment for npm commands against this registry (isolated cache and userconfig). */
  npmEnv: Record<string, string>;
  publish(pkg: FixturePackage): Promise<void>;
  deprecate(name: string, version: string, message: string): Promise<void>;
  /** Rewrites the publish time the registry reports for a version. */
  setPublishTime(name: string, version: string, time: Date): Promise<void>;
  /**
   * Gives a version the trust evidence npmjs.com reports: published by a
   * trusted publisher (`_npmUser.trustedPublisher`) or with a provenance
   * attestation (`dist.attestations`).
   */
  setTrust(
    name: string,
    version: string,
    evidence: "trustedPublisher" | "provenance",
  ): Promise<void>;
  /** What the bulk advisory route knows, per package (replaces what was set before). */
  setAdvisories(advisories: Record<string, FixtureAdvisory[]>): void;
  /** Bodies the bulk advisory route was sent, oldest first. */
  advisoryRequests: Array<Record<string, string[]>>;
  /** Every GET the registry answered (packuments, tarballs), oldest first, with its Accept header. */
  getRequests: Array<{ path: string; accept: string }>;
  close(): Promise<void>;
}

export async function startLocalRegistry(root: string): Promise<LocalRegistry> {
  const storage = join(root, "storage");
  await mkdir(storage, { recursive: true });
  const server = (await runServer({
    self_path: storage,
    storage,
    uplinks: {},
    packages: {
      // Private scope: reading needs a token, as on a company registry.
      "@private/*": { access: "$authenticated", publish: "$authenticated" },
      "**": { access: "$all", publish: "$authenticated", unpublish: "$authenticated" },
    },
    // verdaccio checks the password behind a token on every request: with
    // its default (bcrypt, 10 rounds) that was 28 s of the suite's CPU.
    auth: { htpasswd: { file: join(storage, "htpasswd"), max_users: 10, algorithm: "sha1" } },
    log: { type: "stdout", format: "pretty", level: "fatal" },
    web: { enable: false },
    // biome-ignore lint/suspicious/noExplicitAny: verdaccio's config type wants every optional section
  } as any)) as Server;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const backend = (server.address() as AddressInfo).port;
  let advisories: Record<string, FixtureAdvisory[]> = {};
  const advisoryRequests: Array<Record<string, string[]>> = [];
  const getRequests: Array<{ path: string; accept: string }> = [];
  const front = createServer((req, res) => {
    if (req.method === "POST" && req.url?.startsWith("/-/npm/v1/security/advisories/bulk")) {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        // npm's own audit sends the body gzipped.
        const body = Buffer.concat(chunks);
        let asked: Record<string, string[]>;
        try {
          const text = (
            req.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body
          ).toString("utf8");
          asked = JSON.parse(text || "{}") as Record<string, string[]>;
        } catch {
          res.writeHead(400).end();
          return;
        }
        advisoryRequests.push(asked);
        const answer: Record<string, FixtureAdvisory[]> = {};
        for (const [name, versions] of Object.entries(asked)) {
          const hits = (advisories[name] ?? []).filter((a) =>
            versions.some((v) => satisfies(v, a.vulnerable_versions)),
          );
          if (hits.length > 0) answer[name] = hits;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(answer));
      });
      return;
    }
    if (req.method === "GET")
      getRequests.push({
        path: decodeURIComponent(req.url ?? ""),
        accept: req.headers.accept ?? "",
      });
    const upstream = httpRequest(
      { host: "127.0.0.1", port: backend, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((done) => front.listen(0, "127.0.0.1", done));
  const { port } = front.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/`;

  const response = await fetch(`${url}-/user/org.couchdb.user:fixtures`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name: "fixtures",
      password: "fixtures-password",
      type: "user",
      roles: [],
    }),
  });
  const { token } = (await response.json()) as { token: string };
  const userconfig = join(root, "publisher.npmrc");
  await writeFile(userconfig, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  const npmEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(root, "home"),
    npm_config_cache: join(root, "npm-cache"),
    npm_config_userconfig: userconfig,
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
  await mkdir(npmEnv.HOME, { recursive: true });
  let packages = 0;

  /** verdaccio serves what its storage holds: a package's document, edited in place. */
  const editStored = async (
    name: string,
    edit: (doc: {
      time: Record<string, string>;
      versions: Record<string, Record<string, unknown>>;
    }) => void,
  ) => {
    const path = join(storage, name, "package.json");
    const doc = JSON.parse(await readFile(path, "utf8"));
    edit(doc);
    await writeFile(path, JSON.stringify(doc, null, 2));
  };

  return {
    url,
    storage,
    userconfig,
    token,
    npmEnv,
    async publish(pkg) {
      const manifest = {
        name: pkg.name,
        version: pkg.version,
        main: "index.js",
        license: "MIT",
        ...pkg.manifest,
      };
      const files = pkg.files ?? {
        "index.js": `module.exports = ${JSON.stringify(pkg.version)};\n`,
      };
      await publishPackage(
        { url, token },
        join(root, "packages", `${++packages}`),
        manifest,
        files,
      );
    },
    async deprecate(name, version, message) {
      await deprecateVersion({ url, token }, name, version, message);
    },
    async setPublishTime(name, version, time) {
      await editStored(name, (doc) => {
        doc.time[version] = time.toISOString();
      });
    },
    async setTrust(name, version, evidence) {
      await editStored(name, (doc) => {
        const manifest = doc.versions[version];
        if (!manifest) throw new Error(`${name}@${version} is not published here`);
        if (evidence === "trustedPublisher") {
          manifest._npmUser = {
            name: "GitHub Actions",
            email: "npm-oidc-no-reply@github.com",
            trustedPublisher: { id: "github", oidcConfigId: "oidc:fixture" },
          };
        } else {
          const dist = (manifest.dist ?? {}) as Record<string, unknown>;
          manifest.dist = {
            ...dist,
            attestations: {
              url: `${url}-/npm/v1/attestations/${name}@${version}`,
              provenance: { predicateType: "https://slsa.dev/provenance/v1" },
            },
          };
        }
      });
    },
    setAdvisories(next) {
      advisories = next;
    },
    advisoryRequests,
    getRequests,
    close: async () => {
      for (const s of [front, server]) {
        await new Promise<void>((done) => {
          s.closeAllConnections?.();
          s.close(() => done());
        });
      }
    },
  };
}
