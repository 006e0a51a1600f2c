import * as z from "../../zod.js";
import { isRecord } from "../record.js";

/**
 * A packument as the plan reads it: the registry's document for a package,
 * parsed and cut down to the fields the version choice, the checks and the
 * PR body use, as soon as it arrives (registry.ts fetches it).
 */

const repositorySchema = z.catch(
  z.optional(
    z.union([
      z.string(),
      z.object({ url: z.optional(z.string()), directory: z.optional(z.string()) }),
    ]),
  ),
  undefined,
);

// The document's frame; each version is narrowed by hand (slimVersion): zod over
// the thousands of versions of typescript or @types/node was a fifth of a plan's CPU.
const packumentSchema = z.object({
  name: z.string(),
  "dist-tags": z._default(z.record(z.string(), z.string()), {}),
  versions: z._default(z.record(z.string(), z.unknown()), {}),
  time: z._default(z.record(z.string(), z.string()), {}),
  repository: repositorySchema,
});

export type Repository = string | { url?: string | undefined; directory?: string | undefined };

export interface PackumentVersion {
  version: string;
  deprecated?: string | boolean | undefined;
  /** Only the install scripts (preinstall, install, postinstall): the rest is never read. */
  scripts?: Record<string, unknown> | undefined;
  hasInstallScript?: boolean | undefined;
  /** Only engines.node. */
  engines?: Record<string, unknown> | undefined;
  peerDependencies?: Record<string, string> | undefined;
  dist?: { tarball?: string | undefined; integrity?: string | undefined } | undefined;
  repository?: Repository | undefined;
  /**
   * Its strongest trust evidence, as pnpm's trustPolicy weighs it: published
   * by a trusted publisher (`_npmUser.trustedPublisher`, in full documents
   * only) or with a provenance attestation (`dist.attestations.provenance`).
   */
  trust?: TrustEvidence | undefined;
}

export type TrustEvidence = "trustedPublisher" | "provenance";

export interface Packument {
  name: string;
  "dist-tags": Record<string, string>;
  versions: Record<string, PackumentVersion>;
  /** Publish time per version; empty in an abbreviated document. */
  time: Record<string, string>;
  repository?: Repository | undefined;
  /**
   * The registry sent the abbreviated document: no publish times, no
   * repository, no scripts (only `hasInstallScript`). Absent on a full one.
   */
  abbreviated?: true;
}

/**
 * A packument's bytes, parsed and cut down to what the plan reads, so a
 * document of many megabytes is garbage as soon as this returns; undefined
 * when it is not a packument.
 */
export function parsePackument(body: Buffer, abbreviated: boolean): Packument | undefined {
  let data: unknown;
  try {
    data = JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
  const frame = packumentSchema.safeParse(data);
  if (!frame.success) return undefined;
  const versions: Record<string, PackumentVersion> = {};
  for (const [key, raw] of Object.entries(frame.data.versions)) {
    const version = slimVersion(raw);
    if (!version) return undefined;
    versions[key] = version;
  }
  return {
    name: frame.data.name,
    "dist-tags": frame.data["dist-tags"],
    versions,
    time: frame.data.time,
    ...(frame.data.repository !== undefined ? { repository: frame.data.repository } : {}),
    ...(abbreviated ? { abbreviated: true as const } : {}),
  };
}

const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"];

/**
 * One version's fields the plan reads, each kept only when it has the
 * right type (as zod's `.catch(undefined)` did); undefined when it is not a
 * version object at all, which makes the whole document unreadable.
 */
function slimVersion(raw: unknown): PackumentVersion | undefined {
  if (!isRecord(raw) || typeof raw.version !== "string") return undefined;
  const out: PackumentVersion = { version: raw.version };
  const {
    deprecated,
    scripts,
    hasInstallScript,
    engines,
    peerDependencies,
    dist,
    repository,
    _npmUser,
  } = raw;
  if (typeof deprecated === "string" || typeof deprecated === "boolean")
    out.deprecated = deprecated;
  if (isRecord(scripts)) {
    const kept: Record<string, unknown> = {};
    for (const name of INSTALL_SCRIPTS) if (name in scripts) kept[name] = scripts[name];
    out.scripts = kept;
  }
  if (typeof hasInstallScript === "boolean") out.hasInstallScript = hasInstallScript;
  if (isRecord(engines)) out.engines = "node" in engines ? { node: engines.node } : {};
  if (
    isRecord(peerDependencies) &&
    Object.values(peerDependencies).every((v) => typeof v === "string")
  )
    out.peerDependencies = peerDependencies as Record<string, string>;
  if (isRecord(dist))
    out.dist = {
      ...(typeof dist.tarball === "string" ? { tarball: dist.tarball } : {}),
      ...(typeof dist.integrity === "string" ? { integrity: dist.integrity } : {}),
    };
  if (isRecord(_npmUser) && _npmUser.trustedPublisher) out.trust = "trustedPublisher";
  else if (isRecord(dist) && isRecord(dist.attestations) && dist.attestations.provenance)
    out.trust = "provenance";
  const repo = slimRepository(repository);
  if (repo !== undefined) out.repository = repo;
  return out;
}

function slimRepository(raw: unknown): Repository | undefined {
  if (typeof raw === "string") return raw;
  if (!isRecord(raw)) return undefined;
  const { url, directory } = raw;
  if (
    (url !== undefined && typeof url !== "string") ||
    (directory !== undefined && typeof directory !== "string")
  )
    return undefined;
  return {
    ...(url !== undefined ? { url } : {}),
    ...(directory !== undefined ? { directory } : {}),
  };
}
