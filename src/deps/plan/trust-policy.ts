import { prerelease } from "semver";
import type { Packument, TrustEvidence } from "../registry/registry.js";
import { pnpmExemption } from "./pnpm-rules.js";

/**
 * pnpm's `trustPolicy: no-downgrade` (pnpm 10.21 on, pnpm-workspace.yaml):
 * pnpm refuses to resolve a version whose trust evidence is weaker than
 * that of any version of the package published before it (a takeover
 * publishes from a stolen token, without the project's trusted publisher
 * or provenance). `trustPolicyExclude` lets packages through (pnpm's
 * version-policy entries), and `trustPolicyIgnoreAfter` (minutes) versions
 * older than that. Read in pnpm 10.34.8's resolver (trustChecks). A version
 * pnpm refuses fails the job's lockfile step, so the plan never proposes
 * one, and says why: it may be a compromised release.
 */

export interface TrustPolicy {
  /** "trustPolicy: no-downgrade in pnpm-workspace.yaml" */
  source: string;
  /** trustPolicyExclude's entries. */
  exclude: string[];
  ignoreAfterMs?: number;
}

const RANK: Record<TrustEvidence, number> = { trustedPublisher: 2, provenance: 1 };
const LABEL: Record<TrustEvidence | "none", string> = {
  trustedPublisher: "a trusted publisher",
  provenance: "a provenance attestation",
  none: "no trust evidence",
};

/** The policy of a pnpm project from its parsed pnpm-workspace.yaml; undefined when it sets none. */
export function pnpmTrustPolicy(workspace: unknown): TrustPolicy | undefined {
  if (typeof workspace !== "object" || workspace === null) return undefined;
  const settings = workspace as Record<string, unknown>;
  if (settings.trustPolicy !== "no-downgrade") return undefined;
  const exclude = Array.isArray(settings.trustPolicyExclude)
    ? settings.trustPolicyExclude.filter((e): e is string => typeof e === "string")
    : [];
  const minutes = Number(settings.trustPolicyIgnoreAfter);
  return {
    source: "trustPolicy: no-downgrade in pnpm-workspace.yaml",
    exclude,
    ...(Number.isFinite(minutes) && minutes > 0 ? { ignoreAfterMs: minutes * 60_000 } : {}),
  };
}

/** Why pnpm refuses `version` under the policy, or undefined. */
export function trustDowngrade(
  packument: Packument,
  version: string,
  policy: TrustPolicy,
  now: number,
): string | undefined {
  if (pnpmExemption(policy.exclude)(packument.name, version)) return undefined;
  const published = Date.parse(packument.time[version] ?? "");
  // Without a publish time pnpm fails the check outright; that is no bump's doing.
  if (Number.isNaN(published)) return undefined;
  if (policy.ignoreAfterMs !== undefined && now - published > policy.ignoreAfterMs)
    return undefined;
  const earlier = strongestBefore(packument, published, prerelease(version) !== null);
  if (!earlier) return undefined;
  const own = packument.versions[version]?.trust;
  if (own && RANK[own] >= RANK[earlier]) return undefined;
  return `published with ${LABEL[own ?? "none"]} where an earlier release had ${LABEL[earlier]} (a possible takeover); pnpm refuses it (${policy.source})`;
}

/** The strongest evidence of the versions published before `time` (prereleases only for a prerelease). */
function strongestBefore(
  packument: Packument,
  time: number,
  withPrereleases: boolean,
): TrustEvidence | undefined {
  let best: TrustEvidence | undefined;
  for (const release of trustedReleases(packument)) {
    if (release.at >= time || (release.prerelease && !withPrereleases)) continue;
    if (release.trust === "trustedPublisher") return release.trust;
    best = release.trust;
  }
  return best;
}

interface TrustedRelease {
  at: number;
  trust: TrustEvidence;
  prerelease: boolean;
}

/**
 * The releases with trust evidence, read once per packument: the check runs
 * for every version the plan weighs, and walking every version of the
 * package (semver-parsing each) each time was an eighth of TanStack
 * router's plan.
 */
const trusted = new WeakMap<Packument, TrustedRelease[]>();

function trustedReleases(packument: Packument): TrustedRelease[] {
  const known = trusted.get(packument);
  if (known) return known;
  const found: TrustedRelease[] = [];
  for (const [version, manifest] of Object.entries(packument.versions)) {
    if (!manifest.trust) continue;
    const at = Date.parse(packument.time[version] ?? "");
    if (!Number.isNaN(at))
      found.push({ at, trust: manifest.trust, prerelease: prerelease(version) !== null });
  }
  trusted.set(packument, found);
  return found;
}
