import picomatch from "picomatch";
import {
  compare,
  gt,
  lte,
  parse,
  prerelease,
  Range,
  SemVer,
  satisfies,
  valid,
  validRange,
} from "semver";
import type { DepsIgnoreRule, UpdateType } from "../config.js";
import type { Packument } from "../registry/registry.js";
import { updateType } from "../update.js";
import { describeNode, type NodeTarget, safeFloor } from "./node/node-version.js";
import { type ReleaseAge, releaseAgeFor } from "./release-age.js";
import { type TrustPolicy, trustDowngrade } from "./trust-policy.js";

/**
 * Picking the version to propose, with npm's semver: never past
 * `dist-tags.latest` (a maintainer who published 3.0.0 but kept `latest` on
 * 2.x is saying something) unless the project is already past it, no prereleases, no deprecated versions, nothing
 * younger than the cooldown, nothing an ignore rule excludes. A prerelease
 * pinned on purpose (`7.0.0-dev.20260210.1`) follows its own channel: the
 * newer builds of the same channel (`dev`), up to the dist-tag that points
 * at that channel, are candidates too.
 */

export interface VersionPolicy {
  updateTypes: readonly UpdateType[];
  cooldownMs: number;
  ignore: readonly DepsIgnoreRule[];
  now: number;
  /** The Nodes the dependency runs on: versions whose engines.node leaves one out are passed over. */
  node?: readonly NodeTarget[] | undefined;
  /** The package manager's own minimum release age: it refuses younger versions. */
  releaseAge?: ReleaseAge | undefined;
  /** pnpm's trustPolicy: it refuses a version with weaker trust evidence than earlier ones. */
  trust?: TrustPolicy | undefined;
}

/** What the project's package manager refuses to resolve, whatever deps.* says. */
export type ManagerGates = Pick<VersionPolicy, "releaseAge" | "trust">;

/** The policy deps.* sets, for the Nodes a dependency runs on, inside the package manager's gates. */
export function versionPolicy(
  config: {
    updateTypes: readonly UpdateType[];
    cooldownDays: number;
    ignore: readonly DepsIgnoreRule[];
  },
  now: number,
  node: readonly NodeTarget[] | undefined,
  gates: ManagerGates,
): VersionPolicy {
  return {
    updateTypes: config.updateTypes,
    cooldownMs: config.cooldownDays * 86_400_000,
    ignore: config.ignore,
    now,
    node,
    ...gates,
  };
}

export interface Candidate {
  version: string;
  type: UpdateType;
  /** ISO time the version was published, when the registry says. */
  publishedAt?: string;
}

export interface PassedOver {
  version: string;
  type: UpdateType;
  reason: string;
}

export interface TargetChoice {
  /** Highest acceptable version within the current major (minor or patch). */
  nonMajor?: Candidate;
  /** Highest acceptable version in a later major. */
  major?: Candidate;
  /** Newer versions than the chosen ones that were passed over, and why (one per reason and kind). */
  passedOver: PassedOver[];
  latest: string | undefined;
  /** With `sameMinor`: the newest minor release the policy allows, left out for it. */
  newerMinor?: string;
}

/** Ignore rules that name this package (glob patterns allowed). */
export function rulesFor(name: string, rules: readonly DepsIgnoreRule[]): DepsIgnoreRule[] {
  return rules.filter((rule) => picomatch.isMatch(name, rule.name, { dot: true }));
}

/** True when a rule drops the whole package (no versions or update types given). */
export function ignoresPackage(rules: readonly DepsIgnoreRule[]): boolean {
  return rules.some((rule) => rule.versions === undefined && rule.updateTypes === undefined);
}

/**
 * A packument's valid release versions (no prereleases), lowest first.
 * Computed once per packument: a workspace asks the same package's versions
 * for each of its manifests, and sorting typescript's thousands of versions
 * by parsing each at every comparison was most of a plan's CPU after the downloads.
 */
const stableCache = new WeakMap<Packument, { versions: string[]; parsed: SemVer[] }>();

function sortedStable(packument: Packument): { versions: string[]; parsed: SemVer[] } {
  const known = stableCache.get(packument);
  if (known) return known;
  const found: Array<{ version: string; semver: SemVer }> = [];
  for (const version of Object.keys(packument.versions)) {
    const semver = parse(version);
    if (semver && semver.prerelease.length === 0) found.push({ version, semver });
  }
  // Array.prototype.sort is stable: versions equal but for build metadata keep their order, as compare() did.
  found.sort((a, b) => a.semver.compare(b.semver));
  const sorted = { versions: found.map((f) => f.version), parsed: found.map((f) => f.semver) };
  stableCache.set(packument, sorted);
  return sorted;
}

export function stableVersions(packument: Packument): string[] {
  return sortedStable(packument).versions;
}

/** The versions chooseTargets weighs for `current`, newest first: none means it is up to date. */
export function newerCandidates(packument: Packument, current: string): string[] {
  const latestTag = packument["dist-tags"].latest;
  const stable = sortedStable(packument);
  const latest = latestTag && valid(latestTag) ? latestTag : stable.versions.at(-1);
  if (!latest) return [];
  // Already past `latest` (a project on the next line before it is tagged): never a
  // downgrade, and the newer releases of that line are its updates, as Renovate does.
  const cap = gt(current, latest) ? (stable.versions.at(-1) ?? latest) : latest;
  const from = new SemVer(current);
  const to = new SemVer(cap);
  const newer = stable.versions.filter((_, i) => {
    const version = stable.parsed[i] as SemVer;
    return version.compare(from) > 0 && version.compare(to) <= 0;
  });
  // Newest first: a prerelease channel's builds beside the stable releases (already in order without them).
  const builds = channelBuilds(packument, current);
  return builds.length === 0 ? newer.reverse() : [...newer, ...builds].sort(compare).reverse();
}

export function chooseTargets(
  packument: Packument,
  current: string,
  policy: VersionPolicy,
  /** Only patches within the current minor (an alias named for it: `@babel/core-7.12`). */
  sameMinor = false,
): TargetChoice {
  const latestTag = packument["dist-tags"].latest;
  const latest = latestTag && valid(latestTag) ? latestTag : stableVersions(packument).at(-1);
  const choice: TargetChoice = { passedOver: [], latest };
  if (!latest) return choice;
  const candidates = newerCandidates(packument, current);
  const notes = new Map<string, PassedOver>();

  for (const version of candidates) {
    const type = updateType(current, version);
    if (sameMinor && type === "minor") {
      if (!choice.newerMinor && !rejection(packument, version, type, policy, current))
        choice.newerMinor = version;
      continue;
    }
    const slot = type === "major" ? "major" : "nonMajor";
    if (choice[slot]) continue;
    const reason = rejection(packument, version, type, policy, current);
    if (reason) {
      const key = `${slot}:${reason.key}`;
      if (!notes.has(key)) notes.set(key, { version, type, reason: reason.text });
      continue;
    }
    const publishedAt = packument.time[version];
    choice[slot] = { version, type, ...(publishedAt ? { publishedAt } : {}) };
    if (choice.major && choice.nonMajor) break;
  }
  choice.passedOver = [...notes.values()];
  return choice;
}

/** Why the plan passes over `version` (a newer one than `current`), or undefined when it does not. */
export function passedOverReason(
  packument: Packument,
  version: string,
  current: string,
  policy: VersionPolicy,
): string | undefined {
  return rejection(packument, version, updateType(current, version), policy, current)?.text;
}

/**
 * The version a package manager locks when it resolves `range` again (a
 * rewritten range its locked version no longer satisfies, or npm's and
 * yarn's relock of a kept one): the newest release the range allows among
 * those published before `cutoff`, as npm, pnpm, yarn 1 and 4 and bun all
 * do (measured: `^1.0.1` over a lock of 1.0.0 took 1.1.0 with each). Deprecated releases, prereleases and
 * releases without a publish time are left out, which a tool may prefer
 * differently: a guess is left to the job's check of the locked version,
 * and only a sure answer is given here.
 */
export function resolvedBy(
  packument: Packument,
  range: string,
  cutoff: number,
): string | undefined {
  let allowed: Range;
  try {
    allowed = new Range(range);
  } catch {
    return undefined; // satisfies' answer for a range that is none: no version
  }
  // Newest first, the range compiled once: `satisfies` for each of a
  // packument's thousands of versions was a sixth of vercel/ai's plan.
  const versions = stableVersions(packument);
  for (let i = versions.length - 1; i >= 0; i--) {
    const v = versions[i] as string;
    const published = Date.parse(packument.time[v] ?? "");
    if (
      !Number.isNaN(published) &&
      published <= cutoff &&
      !packument.versions[v]?.deprecated &&
      allowed.test(v)
    )
      return v;
  }
  return undefined;
}

/**
 * When the installed version is a prerelease: the newer builds of its
 * channel (the first prerelease word: `dev`, `beta`, `rc`), up to the
 * newest version a dist-tag gives that channel (`next`, `beta`, or
 * `latest` itself for packages that only publish prereleases). A channel no
 * dist-tag points at any more has ended: its builds are not proposed.
 */
function channelBuilds(packument: Packument, current: string): string[] {
  const channel = channelOf(current);
  if (channel === undefined) return [];
  const heads = Object.values(packument["dist-tags"]).filter(
    (v) => valid(v) !== null && channelOf(v) === channel && gt(v, current),
  );
  const head = heads.sort(compare).at(-1);
  if (!head) return [];
  return Object.keys(packument.versions).filter(
    (v) => valid(v) !== null && channelOf(v) === channel && gt(v, current) && lte(v, head),
  );
}

/** "dev" for 7.0.0-dev.20260210.1, "" for 1.0.0-0, undefined for a release. */
function channelOf(version: string): string | undefined {
  const parts = prerelease(version);
  if (!parts) return undefined;
  const [first] = parts;
  return typeof first === "string" ? first.replace(/\d+$/, "") : "";
}

function rejection(
  packument: Packument,
  version: string,
  type: UpdateType,
  policy: VersionPolicy,
  current: string,
): { key: string; text: string } | undefined {
  if (!policy.updateTypes.includes(type)) {
    return { key: `type:${type}`, text: `${type} updates are not enabled (deps.update_types)` };
  }
  const deprecated = packument.versions[version]?.deprecated;
  if (deprecated) {
    const why = typeof deprecated === "string" ? `: ${deprecated}` : "";
    return { key: "deprecated", text: `deprecated${why}` };
  }
  const downgrade = policy.trust && trustDowngrade(packument, version, policy.trust, policy.now);
  if (downgrade) return { key: "trust", text: downgrade };
  for (const rule of rulesFor(packument.name, policy.ignore)) {
    const byVersion = rule.versions ? satisfies(version, rule.versions) : true;
    const byType = rule.updateTypes ? rule.updateTypes.includes(type) : true;
    if (byVersion && byType) {
      const what = [rule.versions, rule.updateTypes?.join("/")].filter(Boolean).join(", ");
      return { key: `ignore:${rule.name}`, text: `ignored by deps.ignore (${rule.name} ${what})` };
    }
  }
  const engines = enginesProblem(packument, version, current, policy.node);
  if (engines) return { key: "engines", text: engines };
  const time = packument.time[version];
  const published = time ? Date.parse(time) : Number.NaN;
  const gate = releaseAgeFor(policy.releaseAge, packument.name, version);
  if (gate && !Number.isNaN(published)) {
    const age = policy.now - published;
    if (age < gate.ms) {
      return {
        key: "release-age",
        text: `released ${formatAge(age)} ago; the package manager refuses it before ${formatAge(gate.ms)} (${gate.source})`,
      };
    }
  }
  if (policy.cooldownMs > 0) {
    if (Number.isNaN(published)) {
      return { key: "no-time", text: "the registry gives no publish time, so its age is unknown" };
    }
    const age = policy.now - published;
    if (age < policy.cooldownMs) {
      return {
        key: "cooldown",
        text: `released ${formatAge(age)} ago, inside the ${formatAge(policy.cooldownMs)} cooldown`,
      };
    }
  }
  return undefined;
}

/**
 * Why one of the Nodes the dependency runs on cannot take `version`, or
 * undefined. Never stricter than what the project already accepts: when
 * the installed version's own engines.node leaves that Node out too, a
 * target with no higher floor is no new problem (mocha 11.7.5 -> 11.8.0
 * with the same range), and the reason for one with a higher floor says
 * so, so it never contradicts the version proposed beside it.
 */
export function enginesProblem(
  packument: Packument,
  version: string,
  current: string,
  nodes: readonly NodeTarget[] | undefined,
): string | undefined {
  const needs = nodeRange(packument, version);
  if (!needs) return undefined;
  for (const node of nodes ?? []) {
    if (satisfies(node.version, needs)) continue;
    const had = nodeRange(packument, current);
    if (had && !satisfies(node.version, had)) {
      const [before, after] = [safeFloor(had), safeFloor(needs)];
      if (before && after && !gt(after, before)) continue;
      return `needs Node ${needs}, more than the ${had} that ${current} already needs (${describeNode(node)})`;
    }
    return `needs Node ${needs}, and ${describeNode(node)}`;
  }
  return undefined;
}

function nodeRange(packument: Packument, version: string): string | undefined {
  const range = packument.versions[version]?.engines?.node;
  return typeof range === "string" && validRange(range) ? range : undefined;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** "3 days", "5 hours", "12 minutes": how a reviewer reads a release's age. */
export function formatAge(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (ms >= DAY) return plural(Math.floor(ms / DAY), "day");
  if (ms >= HOUR) return plural(Math.floor(ms / HOUR), "hour");
  return plural(Math.max(0, Math.floor(ms / 60_000)), "minute");
}
