import { compare, gt, lte, major, prerelease, satisfies, valid } from "semver";
import type { DepsConfig } from "./config.js";
import type { SkippedDependency, Update, UpdateLocation } from "./outdated.js";
import type { DepEntry } from "./project.js";
import type { ProjectNode } from "./project-node.js";
import { writeRange } from "./range-strategy.js";
import type { Advisory, Packument, RegistryClient } from "./registry.js";
import type { ReleaseAge } from "./release-age.js";
import { releaseLinks } from "./release-notes.js";
import { enginesProblem, ignoresPackage, rulesFor, updateType } from "./versions.js";

/**
 * Security updates: the installed versions are sent to the registry's bulk
 * advisory endpoint, as `npm audit` does; a package with advisories gets the
 * lowest version that none of them affects (in its current major when there
 * is one), past deps.update_types and the cooldown, but never past what the
 * package manager itself refuses (min-release-age, engines).
 */

export interface SecurityOptions {
  entries: ReadonlyArray<{ entry: DepEntry; current: string }>;
  packuments: ReadonlyMap<string, Packument>;
  registry: RegistryClient;
  config: Pick<DepsConfig, "ignore" | "rangeStrategy">;
  hasLockfile: boolean;
  now: number;
  node?: ProjectNode | undefined;
  releaseAge?: ReleaseAge | undefined;
  signal?: AbortSignal | undefined;
  /** The registry's answer when it was already asked. */
  known?: Record<string, Advisory[]> | undefined;
}

export interface SecurityFindings {
  updates: Update[];
  skipped: SkippedDependency[];
}

/** The installed versions to ask about: what `npm audit` sends for direct dependencies. */
export function advisoryRequest(
  entries: ReadonlyArray<{ entry: DepEntry; current: string }>,
  config: Pick<DepsConfig, "ignore">,
): Record<string, string[]> {
  const request: Record<string, string[]> = {};
  for (const { entry, current } of entries) {
    if (entry.section === "peerDependencies") continue;
    if (ignoresPackage(rulesFor(entry.name, config.ignore))) continue;
    request[entry.name] = [...new Set([...(request[entry.name] ?? []), current])];
  }
  return request;
}

export async function findSecurityUpdates(options: SecurityOptions): Promise<SecurityFindings> {
  const found =
    options.known ??
    (await options.registry.advisories(
      advisoryRequest(options.entries, options.config),
      options.signal,
    ));
  const updates: Update[] = [];
  const skipped: SkippedDependency[] = [];
  for (const [name, advisories] of Object.entries(found)) {
    const entries = options.entries.filter(
      (e) => e.entry.name === name && e.entry.section !== "peerDependencies",
    );
    const packument = options.packuments.get(name);
    const [first] = entries;
    if (!first || !packument) continue;
    const current = first.current;
    const affecting = advisories.filter((a) => safeSatisfies(current, a.vulnerable_versions));
    if (affecting.length === 0) continue;
    const skip = (reason: string) => skipped.push({ name, manifest: first.entry.manifest, reason });
    const target = fixingVersion(packument, current, affecting, options);
    if (!target.version) {
      skip(`${current} has ${describeAdvisories(affecting)}; ${target.reason}`);
      continue;
    }
    const locations: UpdateLocation[] = [];
    for (const { entry } of entries) {
      const write = writeRange(entry.spec, target.version, {
        strategy: options.config.rangeStrategy,
        section: entry.section,
        hasLockfile: options.hasLockfile,
      });
      // A security fix must land: a range that already allows it still gets raised.
      const spec =
        write.kind === "write" && (write.spec !== null || options.hasLockfile)
          ? write.spec
          : raisedFloor(entry.spec, target.version);
      locations.push({
        manifest: entry.manifest,
        section: entry.section,
        spec: entry.spec,
        newSpec: spec,
      });
    }
    updates.push({
      name,
      from: current,
      to: target.version,
      type: updateType(current, target.version),
      ...(packument.time[target.version] ? { publishedAt: packument.time[target.version] } : {}),
      locations,
      links: releaseLinks(packument, target.version),
      newInstallScripts: [],
      passedOver: [],
      advisories: affecting,
    });
  }
  return { updates: updates.sort((a, b) => a.name.localeCompare(b.name)), skipped };
}

export function describeAdvisories(advisories: readonly Advisory[]): string {
  return advisories.map((a) => `advisory ${a.id} (${a.severity})`).join(", ");
}

function fixingVersion(
  packument: Packument,
  current: string,
  advisories: readonly Advisory[],
  options: SecurityOptions,
): { version?: string; reason: string } {
  const latest = packument["dist-tags"].latest;
  const candidates = Object.keys(packument.versions)
    .filter((v) => valid(v) && !prerelease(v) && gt(v, current) && (!latest || lte(v, latest)))
    .sort(compare);
  const reasons: string[] = [];
  const acceptable = candidates.filter((version) => {
    if (advisories.some((a) => safeSatisfies(version, a.vulnerable_versions))) return false;
    if (packument.versions[version]?.deprecated) return false;
    const engines = enginesProblem(packument, version, current, options.node);
    if (engines) {
      reasons.push(`${version} ${engines}`);
      return false;
    }
    const published = Date.parse(packument.time[version] ?? "");
    if (options.releaseAge && !Number.isNaN(published)) {
      if (options.now - published < options.releaseAge.ms) {
        reasons.push(`${version} is younger than ${options.releaseAge.source}`);
        return false;
      }
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
