import { compare, satisfies } from "semver";
import type { DepsConfig } from "../config.js";
import type { LockedGraph } from "../managers/types.js";
import type { Advisory, RegistryClient } from "../registry/registry.js";
import { releaseLinks } from "../registry/release-notes.js";
import { type Update, updateType } from "../update.js";
import type { SkippedDependency } from "./dependency-list.js";
import { newInstallScripts } from "./install-scripts.js";
import { type ReleaseAge, releaseAgeFor } from "./release-age.js";
import { describeAdvisories } from "./security.js";
import { ignoresPackage, rulesFor, stableVersions } from "./versions.js";

/**
 * Advisories on packages the project does not name itself, as `npm audit`
 * finds them: every version in package-lock.json is sent to the bulk
 * endpoint. A fix inside the ranges its dependents ask for is a lockfile-only
 * update (npm resolves the package again, as `npm audit fix` would); a fix
 * outside them needs a dependent's bump, and is listed with that reason.
 * npm lockfiles only (their reader's lockedGraph): pnpm's and yarn's are read for direct dependencies.
 */

export interface TransitiveOptions {
  graph: LockedGraph;
  lockfilePath: string;
  registry: RegistryClient;
  config: Pick<DepsConfig, "ignore">;
  now: number;
  releaseAge?: ReleaseAge | undefined;
  signal?: AbortSignal | undefined;
}

export async function findTransitiveSecurityUpdates(
  options: TransitiveOptions,
): Promise<{ updates: Update[]; skipped: SkippedDependency[] }> {
  const { graph } = options;
  const request: Record<string, string[]> = {};
  for (const [name, versions] of graph.versions) {
    if (ignoresPackage(rulesFor(name, options.config.ignore))) continue;
    request[name] = [...versions];
  }
  const updates: Update[] = [];
  const skipped: SkippedDependency[] = [];
  if (Object.keys(request).length === 0) return { updates, skipped };
  const found = await options.registry.advisories(request, options.signal);
  for (const [name, advisories] of Object.entries(found)) {
    const installed = [...(graph.versions.get(name) ?? [])].sort(compare);
    const affected = installed.filter((v) => advisories.some((a) => hits(v, a)));
    const from = affected[0];
    if (!from) continue;
    const affecting = advisories.filter((a) => affected.some((v) => hits(v, a)));
    const wanted = graph.wantedBy.get(name) ?? [];
    const skip = (reason: string) => skipped.push({ name, manifest: options.lockfilePath, reason });
    const packument = await options.registry.packument(name, options.signal);
    // What npm resolves when it locks the package again: the newest version
    // every dependent's range allows, old enough for the release-age gate.
    const candidates = stableVersions(packument)
      .filter((v) => wanted.every((w) => safeSatisfies(v, w.range)))
      .filter((v) => {
        const published = Date.parse(packument.time[v] ?? "");
        const gate = releaseAgeFor(options.releaseAge, name, v);
        return !gate || Number.isNaN(published) || options.now - published >= gate.ms;
      });
    const to = candidates.at(-1);
    const parents = wanted.map((w) => `${w.parent} (${w.range})`).join(", ") || "nothing listed";
    if (!to || advisories.some((a) => hits(to, a))) {
      skip(
        `${from} (pulled in by ${parents}) has ${describeAdvisories(affecting)}; no version those ranges allow fixes it, so a package that depends on it must be bumped first`,
      );
      continue;
    }
    updates.push({
      name,
      from,
      to,
      type: updateType(from, to),
      ...(packument.time[to] ? { publishedAt: packument.time[to] } : {}),
      // Nothing to write in a manifest: the lockfile step resolves the package again.
      locations: [
        {
          manifest: options.lockfilePath,
          section: "dependencies",
          spec: [...new Set(wanted.map((w) => w.range))].join(" ") || "*",
          newSpec: null,
          from,
        },
      ],
      links: releaseLinks(packument, to),
      newInstallScripts: newInstallScripts(packument, from, to),
      passedOver: [],
      advisories: affecting,
    });
  }
  return { updates: updates.sort((a, b) => a.name.localeCompare(b.name)), skipped };
}

function hits(version: string, advisory: Advisory): boolean {
  return safeSatisfies(version, advisory.vulnerable_versions);
}

function safeSatisfies(version: string, range: string): boolean {
  try {
    return satisfies(version, range);
  } catch {
    return false;
  }
}
