import { isRecord } from "../record.js";
import { keepMembers, objectMembers, opensObject, skipSpace } from "./json-members.js";

/**
 * A packument as the plan reads it: the registry's document for a package,
 * read and cut down to the fields the version choice, the checks and the
 * PR body use, as soon as it arrives (registry.ts fetches it). Checked by
 * hand, not with zod: zod over the thousands of versions of typescript or
 * @types/node was a fifth of a plan's CPU, and over their publish times
 * still 0.2 s of vercel/ai's 4.
 */

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
 * A packument's bytes, read down to what the plan keeps, so a document of
 * many megabytes is never a string or a tree of its own (readDocument);
 * undefined when it is not a packument.
 */
export function parsePackument(body: Buffer, abbreviated: boolean): Packument | undefined {
  let data: Record<string, unknown> | undefined;
  try {
    data = readDocument(body);
  } catch {
    return undefined;
  }
  if (data === undefined || typeof data.name !== "string") return undefined;
  const distTags = stringRecord(data["dist-tags"]);
  const time = stringRecord(data.time);
  const rawVersions = data.versions === undefined ? {} : data.versions;
  if (!distTags || !time || !isRecord(rawVersions)) return undefined;
  const versions: [string, PackumentVersion][] = [];
  for (const [key, raw] of Object.entries(rawVersions)) {
    const version = slimVersion(raw);
    if (!version) return undefined;
    versions.push([key, version]);
  }
  const repository = slimRepository(data.repository);
  return {
    name: data.name,
    "dist-tags": distTags,
    // fromEntries: a key "__proto__" is a key, not the object's prototype.
    versions: Object.fromEntries(versions),
    time,
    ...(repository !== undefined ? { repository } : {}),
    ...(abbreviated ? { abbreviated: true as const } : {}),
  };
}

/** A record of strings (an absent one is empty), or undefined when it is anything else. */
function stringRecord(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return {};
  if (!isRecord(value)) return undefined;
  for (const entry of Object.values(value)) if (typeof entry !== "string") return undefined;
  return value as Record<string, string>;
}

/**
 * The document's members the frame reads; the rest (readme, users,
 * maintainers...) is skipped. `versions` is read member by member when it
 * is an object, and parsed whole (for the frame to refuse) when not.
 */
const DOCUMENT_KEYS = new Set(["name", "dist-tags", "time", "repository", "versions"]);
/** A version's members slimVersion reads; dependencies, descriptions and the like are skipped. */
const VERSION_KEYS = new Set([
  "version",
  "deprecated",
  "scripts",
  "hasInstallScript",
  "engines",
  "peerDependencies",
  "dist",
  "repository",
  "_npmUser",
]);

/**
 * The document with only the members the frame and slimVersion read, each
 * parsed from its own slice (whole documents parsed set trpc's plan's peak
 * at 461 MB, read so about 310); undefined when it is not one JSON object.
 * Throws on a kept value that is not JSON.
 */
function readDocument(body: Buffer): Record<string, unknown> | undefined {
  const document: Record<string, unknown> = {};
  const keep = keepMembers(body, DOCUMENT_KEYS, document);
  const start = skipSpace(body, 0);
  const end = objectMembers(body, start, (key, from) => {
    if (key !== "versions" || !opensObject(body, from)) return keep(key, from);
    const versions: [string, unknown][] = [];
    const to = objectMembers(body, from, (version, at) => {
      // A version that is no object makes the document unreadable (as slimVersion says).
      if (!opensObject(body, at)) return -1;
      const kept: Record<string, unknown> = {};
      versions.push([version, kept]);
      return objectMembers(body, at, keepMembers(body, VERSION_KEYS, kept));
    });
    // fromEntries: a version keyed "__proto__" stays a key, as JSON.parse keeps it.
    document.versions = Object.fromEntries(versions);
    return to;
  });
  if (end < 0 || skipSpace(body, end) !== body.length) return undefined;
  return document;
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
