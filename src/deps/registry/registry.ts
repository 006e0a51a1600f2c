import registryFetch from "npm-registry-fetch";
import { z } from "zod";
import { type NpmConfig, registryFor, toFetchOptions } from "./npmrc.js";

/**
 * What patchwright reads from a registry: the full packument (not the
 * abbreviated one, which has no publish times), parsed down to the fields
 * the version choice and the PR body use.
 */

const repositorySchema = z
  .union([z.string(), z.object({ url: z.string().optional(), directory: z.string().optional() })])
  .optional()
  .catch(undefined);

// Parsed down to these fields (z.object drops the rest): a monorepo's plan holds a
// hundred full packuments at once, and their dependency maps and readmes are most of them.
const versionSchema = z.object({
  version: z.string(),
  deprecated: z.union([z.string(), z.boolean()]).optional().catch(undefined),
  scripts: z.record(z.string(), z.unknown()).optional().catch(undefined),
  hasInstallScript: z.boolean().optional().catch(undefined),
  engines: z.record(z.string(), z.unknown()).optional().catch(undefined),
  peerDependencies: z.record(z.string(), z.string()).optional().catch(undefined),
  dist: z.object({ tarball: z.string().optional() }).optional().catch(undefined),
  repository: repositorySchema,
});

const packumentSchema = z.object({
  name: z.string(),
  "dist-tags": z.record(z.string(), z.string()).default({}),
  versions: z.record(z.string(), versionSchema).default({}),
  time: z.record(z.string(), z.string()).default({}),
  repository: repositorySchema,
});

export type Packument = z.infer<typeof packumentSchema>;
export type PackumentVersion = z.infer<typeof versionSchema>;

export class RegistryError extends Error {
  constructor(
    readonly packageName: string,
    readonly registry: string,
    message: string,
  ) {
    super(message);
    this.name = "RegistryError";
  }
}

export type FetchJson = (url: string, options: Record<string, unknown>) => Promise<unknown>;

const advisorySchema = z.looseObject({
  id: z.union([z.number(), z.string()]),
  url: z.string().optional().catch(undefined),
  title: z.string().catch(""),
  severity: z.string().catch("unknown"),
  vulnerable_versions: z.string(),
});
const bulkSchema = z.record(z.string(), z.array(advisorySchema).catch([]));

export type Advisory = z.infer<typeof advisorySchema>;

export interface RegistryClient {
  /** The full packument; fetched once per client and name. */
  packument(name: string, signal?: AbortSignal): Promise<Packument>;
  /** A version's tarball (gzipped), from the URL its packument gives. */
  tarball(name: string, version: string, signal?: AbortSignal): Promise<Buffer>;
  /**
   * Known advisories for these versions, from the registry's bulk advisory
   * endpoint (the one `npm audit` asks): per package, the advisories that
   * affect at least one of the versions given.
   */
  advisories(
    versions: Record<string, string[]>,
    signal?: AbortSignal,
  ): Promise<Record<string, Advisory[]>>;
  registryFor(name: string): string;
}

export interface RegistryClientOptions {
  npm: NpmConfig;
  /** Default: npm-registry-fetch, which applies scoped registries, auth and proxies like npm. */
  fetchJson?: FetchJson;
  fetchBuffer?: (url: string, options: Record<string, unknown>) => Promise<Buffer>;
}

export function createRegistryClient(options: RegistryClientOptions): RegistryClient {
  const fetchJson: FetchJson = options.fetchJson ?? ((url, opts) => registryFetch.json(url, opts));
  const base = toFetchOptions(options.npm);
  const cache = new Map<string, Promise<Packument>>();

  const load = async (name: string, signal?: AbortSignal): Promise<Packument> => {
    const registry = registryFor(name, options.npm);
    let data: unknown;
    try {
      data = await fetchJson(`/${name.replace("/", "%2f")}`, {
        ...base,
        spec: name,
        // Full metadata: the abbreviated document has no `time`, so no release age.
        headers: { accept: "application/json" },
        // Always ask: a cached packument would hide the release the run is for.
        preferOnline: true,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      const reason =
        status === 404
          ? "not found"
          : status === 401 || status === 403
            ? `access denied (${status}); check the token for this registry in .npmrc`
            : error instanceof Error
              ? error.message
              : String(error);
      throw new RegistryError(name, registry, `${name}: ${reason} on ${registry}`);
    }
    const parsed = packumentSchema.safeParse(data);
    if (!parsed.success) {
      throw new RegistryError(name, registry, `${name}: ${registry} sent an unreadable packument`);
    }
    return parsed.data;
  };

  return {
    packument(name, signal) {
      let found = cache.get(name);
      if (!found) {
        found = load(name, signal);
        cache.set(name, found);
        found.catch(() => cache.delete(name));
      }
      return found;
    },
    registryFor: (name) => registryFor(name, options.npm),
    async tarball(name, version, signal) {
      const packument = await this.packument(name, signal);
      const url = packument.versions[version]?.dist?.tarball;
      if (!url)
        throw new RegistryError(
          name,
          registryFor(name, options.npm),
          `${name}@${version}: no tarball in the packument`,
        );
      const fetchBuffer =
        options.fetchBuffer ??
        (async (target: string, opts: Record<string, unknown>) =>
          (await registryFetch(target, opts)).buffer());
      return fetchBuffer(url, { ...base, spec: name, ...(signal ? { signal } : {}) });
    },
    async advisories(versions, signal) {
      if (Object.keys(versions).length === 0) return {};
      let data: unknown;
      try {
        data = await fetchJson("/-/npm/v1/security/advisories/bulk", {
          ...base,
          method: "POST",
          body: versions,
          preferOnline: true,
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new RegistryError(
          "(advisories)",
          options.npm.registry,
          `the advisory endpoint of ${options.npm.registry} failed: ${reason}`,
        );
      }
      const parsed = bulkSchema.safeParse(data);
      if (!parsed.success) {
        throw new RegistryError(
          "(advisories)",
          options.npm.registry,
          `${options.npm.registry} sent an unreadable advisory answer`,
        );
      }
      return parsed.data;
    },
  };
}
