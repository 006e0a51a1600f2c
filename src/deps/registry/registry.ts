import { setMaxListeners } from "node:events";
import registryFetch from "npm-registry-fetch";
import PQueue from "p-queue";
import { withRetries } from "../../git/retry.js";
import * as z from "../../zod.js";
import { type NpmConfig, registryFor, retryDelaysMs, toFetchOptions } from "./npmrc.js";
import { type Packument, parsePackument } from "./packument.js";

export type { Packument, PackumentVersion, Repository, TrustEvidence } from "./packument.js";

/**
 * What patchwright reads from a registry: packuments (parsed down to what
 * the plan reads by packument.ts), tarballs and advisories. A plan asks first for the
 * abbreviated document (what installing needs: versions, engines, peers,
 * deprecations, tarballs), and for the full one, which adds publish times,
 * repositories and scripts, only for the packages that have a newer version
 * to weigh.
 */

/** What a client fetched, for the plan's `timing`. */
export interface RegistryStats {
  /** Packument documents received (abbreviated and full). */
  documents: number;
  /** Of those, abbreviated ones. */
  abbreviated: number;
  /** Distinct package names asked. */
  names: number;
  /** Bytes of packument documents received (as decoded, after any compression). */
  bytes: number;
}

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
  url: z.catch(z.optional(z.string()), undefined),
  title: z.catch(z.string(), ""),
  severity: z.catch(z.string(), "unknown"),
  vulnerable_versions: z.string(),
});
const bulkSchema = z.record(z.string(), z.catch(z.array(advisorySchema), []));

export type Advisory = z.infer<typeof advisorySchema>;

export interface RegistryClient {
  /** The full packument (publish times, repository, scripts); fetched once per client and name. */
  packument(name: string, signal?: AbortSignal): Promise<Packument>;
  /**
   * The abbreviated packument where the registry serves one (marked
   * `abbreviated`), else the full one: enough to know a package's versions,
   * engines, peers and deprecations. Fetched once per client and name, and
   * answered by the full packument when that is already here. A client
   * without it is asked for the full one.
   */
  abbreviatedPackument?(name: string, signal?: AbortSignal): Promise<Packument>;
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
  /** What this client fetched so far. */
  stats?(): RegistryStats;
}

/** A packument request's answer: its media type (abbreviated or full) and its bytes. */
export type FetchDocument = (
  url: string,
  options: Record<string, unknown>,
) => Promise<{ contentType: string; body: Buffer }>;

export interface RegistryClientOptions {
  npm: NpmConfig;
  /** The advisory endpoint's. Default: npm-registry-fetch, which applies scoped registries, auth and proxies like npm. */
  fetchJson?: FetchJson;
  /** Packuments'. Default: npm-registry-fetch. */
  fetchDocument?: FetchDocument;
  fetchBuffer?: (url: string, options: Record<string, unknown>) => Promise<Buffer>;
  /** Packument requests under way at once (default 16), whoever asks. */
  concurrency?: number;
}

/** npm's own: the abbreviated document when the registry has it, else the full one. */
const ABBREVIATED_ACCEPT =
  "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*";
const ABBREVIATED_TYPE = "application/vnd.npm.install-v1+json";

const fetchWithType: FetchDocument = async (url, opts) => {
  const response = await registryFetch(url, opts);
  return { contentType: response.headers.get("content-type") ?? "", body: await response.buffer() };
};

/**
 * Each request under way holds an abort listener on the caller's signal
 * (minipass-fetch adds one), 16 at a time here, past the 10 at which Node
 * warns of a leak: `patchwright deps` printed MaxListenersExceededWarning on
 * hono's repository. The queue bounds them, so the signal is told to expect
 * them (0: no limit, as its listeners are released with their requests).
 */
function expectListeners(signal: AbortSignal | undefined): void {
  if (signal) setMaxListeners(0, signal);
}

// The failures make-fetch-happen asks again after for a GET (its RETRY_ERRORS, and 408, 420, 429 and 5xx answers).
const TRANSIENT_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EADDRINUSE",
  "ETIMEDOUT",
  "ECONNECTIONTIMEOUT",
  "EIDLETIMEOUT",
  "ERESPONSETIMEOUT",
  "ETRANSFERTIMEOUT",
]);

function isTransientRegistryError(error: unknown): boolean {
  const { statusCode, code } = (error ?? {}) as { statusCode?: unknown; code?: unknown };
  if (typeof statusCode === "number")
    return [408, 420, 429].includes(statusCode) || statusCode >= 500;
  return typeof code === "string" && TRANSIENT_CODES.has(code);
}

export function createRegistryClient(options: RegistryClientOptions): RegistryClient {
  const fetchJson: FetchJson = options.fetchJson ?? ((url, opts) => registryFetch.json(url, opts));
  const fetchDocument = options.fetchDocument ?? fetchWithType;
  const base = toFetchOptions(options.npm);
  // One bound for every packument request, the plan's and the groups' alike:
  // a monorepo asks for a hundred at once, and each may be megabytes.
  const queue = new PQueue({ concurrency: options.concurrency ?? 16 });
  const full = new Map<string, Promise<Packument>>();
  const abbreviated = new Map<string, Promise<Packument>>();
  const stats: RegistryStats = { documents: 0, abbreviated: 0, names: 0, bytes: 0 };
  const asked = new Set<string>();

  const load = async (
    name: string,
    kind: "full" | "abbreviated",
    signal?: AbortSignal,
  ): Promise<Packument> => {
    expectListeners(signal);
    const registry = registryFor(name, options.npm);
    if (!asked.has(name)) {
      asked.add(name);
      stats.names += 1;
    }
    let answer: { contentType: string; body: Buffer };
    try {
      answer = (await queue.add(
        () =>
          fetchDocument(`/${name.replace("/", "%2f")}`, {
            ...base,
            spec: name,
            // The full document has `time`, so release ages; the abbreviated one is a fraction of it.
            headers: { accept: kind === "full" ? "application/json" : ABBREVIATED_ACCEPT },
            // Always ask: a cached packument would hide the release the run is for.
            preferOnline: true,
            ...(signal ? { signal } : {}),
          }),
        { throwOnTimeout: true },
      )) as { contentType: string; body: Buffer };
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
    stats.documents += 1;
    stats.bytes += answer.body.length;
    const isAbbreviated = answer.contentType.toLowerCase().includes(ABBREVIATED_TYPE);
    if (isAbbreviated) stats.abbreviated += 1;
    const parsed = parsePackument(answer.body, isAbbreviated);
    if (!parsed) {
      throw new RegistryError(name, registry, `${name}: ${registry} sent an unreadable packument`);
    }
    return parsed;
  };

  const remember = (
    cache: Map<string, Promise<Packument>>,
    name: string,
    found: Promise<Packument>,
  ) => {
    cache.set(name, found);
    found.catch(() => cache.delete(name));
    return found;
  };

  return {
    packument(name, signal) {
      const known = full.get(name);
      if (known) return known;
      const first = abbreviated.get(name);
      // An abbreviated request that the registry answered in full needs no second one.
      const found = first
        ? first.then((p) => (p.abbreviated ? load(name, "full", signal) : p))
        : load(name, "full", signal);
      return remember(full, name, found);
    },
    abbreviatedPackument(name, signal) {
      const known = full.get(name) ?? abbreviated.get(name);
      if (known) return known;
      return remember(abbreviated, name, load(name, "abbreviated", signal));
    },
    stats: () => ({ ...stats }),
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
      expectListeners(signal);
      return fetchBuffer(url, { ...base, spec: name, ...(signal ? { signal } : {}) });
    },
    async advisories(versions, signal) {
      if (Object.keys(versions).length === 0) return {};
      let data: unknown;
      try {
        // npm's fetch asks again after a dropped connection or a 5xx for a GET, never for a
        // POST. This POST only reads, so it is asked again the same way: a kept-alive socket
        // the registry closed after the packuments cost the job its advisory check otherwise.
        data = await withRetries(
          () =>
            fetchJson("/-/npm/v1/security/advisories/bulk", {
              ...base,
              method: "POST",
              body: versions,
              preferOnline: true,
              ...(signal ? { signal } : {}),
            }),
          isTransientRegistryError,
          { delaysMs: retryDelaysMs(base), ...(signal ? { signal } : {}) },
        );
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
