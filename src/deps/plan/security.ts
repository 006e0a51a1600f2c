import { compare, gt, lte, major, satisfies } from "semver";
import type { DepsConfig } from "../config.js";
import type { Advisory, Packument, RegistryClient } from "../registry/registry.js";
import { releaseLinks } from "../registry/release-notes.js";
import { type Update, type UpdateLocation, updateType } from "../update.js";
import { catalogOf, type SkippedDependency, type WantedDependency } from "./dependency-list.js";
import { newInstallScripts } from "./install-scripts.js";
import type { NodeTarget } from "./node/node-version.js";
import { nodeTargetsFor, type ProjectNodes } from "./node/project-node.js";
import { addLocation } from "./outdated.js";
import { type HeldDependency, heldReason } from "./overrides.js";
import { writeRange } from "./range-strategy.js";
import { releaseAgeFor } from "./release-age.js";
import { withAlias } from "./spec.js";
import { trustDowngrade } from "./trust-policy.js";
import {
  enginesProblem,
  ignoresPackage,
  type ManagerGates,
  rulesFor,
  stableVersions,
} from "./versions.js";

/**
 * Security updates: the installed versions are sent to the registry's bulk
 * advisory endpoint, as `npm audit` does; a package with advisories gets the
 * lowest version that none of them affects (in its current major when there
 * is one), past deps.update_types and the cooldown, but never past what the
 * package manager itself refuses (min-release-age, engines, pnpm's trust policy).
 */

export interface SecurityOptions {
  entries: readonly WantedDependency[];
  /** By registry package name. */
  packuments: ReadonlyMap<string, Packument>;
  registry: RegistryClient;
  config: Pick<DepsConfig, "ignore" | "rangeStrategy">;
  hasLockfile: boolean;
  now: number;
  nodes?: ProjectNodes | undefined;
  /** What the package manager refuses (release age, trust policy). */
  gates: ManagerGates;
  signal?: AbortSignal | undefined;
  /** The registry's answer when it was already asked. */
  known?: Record<string, Advisory[]> | undefined;
  /** Dependencies an override holds: asked about too, and said with their advisories. */
  held?: readonly HeldDependency[] | undefined;
}

export interface SecurityFindings {
  updates: Update[];
  skipped: SkippedDependency[];
}

/** The installed versions to ask about: what `npm audit` sends for direct dependencies. */
export function advisoryRequest(
  entries: ReadonlyArray<
    Pick<WantedDependency, "current" | "package"> & { entry: { name: string; section: string } }
  >,
  config: Pick<DepsConfig, "ignore">,
): Record<string, string[]> {
  const request: Record<string, string[]> = {};
  for (const { entry, current, package: name } of entries) {
    if (entry.section === "peerDependencies") continue;
    if (ignoresPackage(rulesFor(entry.name, config.ignore))) continue;
    request[name] = [...new Set([...(request[name] ?? []), current])];
  }
  return request;
}

export async function findSecurityUpdates(options: SecurityOptions): Promise<SecurityFindings> {
  const held = options.held ?? [];
  const found =
    options.known ??
    (await options.registry.advisories(
      advisoryRequest([...options.entries, ...held], options.config),
      options.signal,
    ));
  const updates: Update[] = [];
  const skipped: SkippedDependency[] = [];
  // An override holds it: no bump fixes it, the override must change. Said with the advisories.
  for (const h of held) {
    const affecting = (found[h.package] ?? []).filter((a) =>
      safeSatisfies(h.current, a.vulnerable_versions),
    );
    if (affecting.length > 0)
      skipped.push({
        name: h.entry.name,
        manifest: h.entry.manifest,
        reason: `${h.current} has ${describeAdvisories(affecting)}; ${heldReason(h.override)}`,
      });
  }
  for (const [name, advisories] of Object.entries(found)) {
    const known = options.packuments.get(name);
    if (!known) continue;
    // A fix is weighed on publish times (release age) and named with its links: the full document.
    const packument = known.abbreviated
      ? await options.registry.packument(name, options.signal).catch((error: Error) => error)
      : known;
    if (packument instanceof Error) {
      for (const wanted of options.entries)
        if (wanted.package === name && wanted.entry.section !== "peerDependencies") {
          skipped.push({
            name: wanted.entry.name,
            manifest: wanted.entry.manifest,
            reason: `has ${describeAdvisories(advisories)}; ${packument.message}`,
          });
          break;
        }
      continue;
    }
    // An alias and the package under its own name are two dependencies: one fix each.
    const byDependency = new Map<string, WantedDependency[]>();
    for (const wanted of options.entries) {
      if (wanted.package !== name || wanted.entry.section === "peerDependencies") continue;
      const affected = advisories.some((a) => safeSatisfies(wanted.current, a.vulnerable_versions));
      if (affected)
        byDependency.set(wanted.entry.name, [
          ...(byDependency.get(wanted.entry.name) ?? []),
          wanted,
        ]);
    }
    for (const [dependency, entries] of byDependency) {
      const update = securityUpdate(dependency, name, entries, advisories, packument, options);
      if ("reason" in update) skipped.push(update);
      else updates.push(update);
    }
  }
  return { updates: updates.sort((a, b) => a.name.localeCompare(b.name)), skipped };
}

/** The fix for one dependency's affected installs: the lowest version above them all that no advisory affects. */
function securityUpdate(
  dependency: string,
  name: string,
  entries: readonly WantedDependency[],
  advisories: readonly Advisory[],
  packument: Packument,
  options: SecurityOptions,
): Update | SkippedDependency {
  const [first] = entries as [WantedDependency, ...WantedDependency[]];
  const highest = entries
    .map((e) => e.current)
    .sort(compare)
    .at(-1) as string;
  const affecting = advisories.filter((a) =>
    entries.some((e) => safeSatisfies(e.current, a.vulnerable_versions)),
  );
  const nodes = options.nodes
    ? uniqueTargets(entries.flatMap((e) => nodeTargetsFor(options.nodes as ProjectNodes, e.entry)))
    : undefined;
  const target = fixingVersion(packument, highest, affecting, nodes, options);
  if (!target.version) {
    return {
      name: dependency,
      manifest: first.entry.manifest,
      reason: `${highest} has ${describeAdvisories(affecting)}; ${target.reason}`,
    };
  }
  let update: Update | undefined;
  for (const { entry, current, range } of entries) {
    const write = writeRange(range, target.version, {
      strategy: options.config.rangeStrategy,
      section: entry.section,
      hasLockfile: options.hasLockfile,
    });
    // A security fix must land: a range that already allows it still gets raised.
    const spec =
      write.kind === "write" && (write.spec !== null || options.hasLockfile)
        ? write.spec
        : raisedFloor(range, target.version);
    const location: UpdateLocation = {
      manifest: entry.manifest,
      section: entry.section,
      spec: entry.spec,
      newSpec: spec === null ? null : withAlias(entry.spec, spec),
      from: current,
      ...catalogOf(entry),
    };
    if (update) {
      addLocation(update, location);
      continue;
    }
    update = {
      name: dependency,
      ...(dependency !== name ? { package: name } : {}),
      from: current,
      to: target.version,
      type: updateType(current, target.version),
      ...(packument.time[target.version] ? { publishedAt: packument.time[target.version] } : {}),
      locations: [location],
      links: releaseLinks(packument, target.version),
      newInstallScripts: newInstallScripts(packument, current, target.version),
      passedOver: [],
      advisories: affecting,
    };
  }
  return update as Update;
}

function uniqueTargets(targets: readonly NodeTarget[]): NodeTarget[] {
  const seen = new Map(targets.map((t) => [`${t.source} ${t.label}`, t]));
  return [...seen.values()];
}

export function describeAdvisories(advisories: readonly Advisory[]): string {
  return advisories.map((a) => `advisory ${a.id} (${a.severity})`).join(", ");
}

function fixingVersion(
  packument: Packument,
  current: string,
  advisories: readonly Advisory[],
  nodes: readonly NodeTarget[] | undefined,
  options: SecurityOptions,
): { version?: string; reason: string } {
  const latest = packument["dist-tags"].latest;
  const candidates = stableVersions(packument).filter(
    (v) => gt(v, current) && (!latest || lte(v, latest)),
  );
  const reasons: string[] = [];
  const acceptable = candidates.filter((version) => {
    if (advisories.some((a) => safeSatisfies(version, a.vulnerable_versions))) return false;
    if (packument.versions[version]?.deprecated) return false;
    const engines = enginesProblem(packument, version, current, nodes);
    if (engines) {
      reasons.push(`${version} ${engines}`);
      return false;
    }
    const published = Date.parse(packument.time[version] ?? "");
    const { trust } = options.gates;
    const downgrade = trust && trustDowngrade(packument, version, trust, options.now);
    if (downgrade) {
      reasons.push(`${version} was ${downgrade}`);
      return false;
    }
    const gate = releaseAgeFor(options.gates.releaseAge, packument.name, version);
    if (gate && !Number.isNaN(published) && options.now - published < gate.ms) {
      reasons.push(`${version} is younger than ${gate.source}`);
      return false;
    }
    return true;
  });
  const sameMajor = acceptable.find((v) => major(v) === major(current));
  const version = sameMajor ?? acceptable[0];
  if (version) return { version, reason: "" };
  return {
    reason:
      reasons.length > 0
        ? `no fixed version can be installed yet: ${reasons.slice(0, 3).join("; ")}`
        : "no published version fixes it yet",
  };
}

/** `^1.2.3` -> `^1.4.0`; anything else becomes `>=` the fixed version within its range. */
function raisedFloor(spec: string, to: string): string {
  const simple = /^(\^|~|)\d+\.\d+\.\d+$/.exec(spec.trim());
  return simple ? `${simple[1]}${to}` : `>=${to} <${major(to) + 1}.0.0-0`;
}

function safeSatisfies(version: string, range: string): boolean {
  try {
    return satisfies(version, range);
  } catch {
    return false;
  }
}
