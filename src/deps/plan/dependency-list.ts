import { posix } from "node:path";
import { satisfies } from "semver";
import type { DepsConfig } from "../config.js";
import type { DepEntry, DepSection, Manifest, NpmProject } from "./project.js";
import { specFloor, specTarget } from "./spec.js";
import { ignoresPackage, rulesFor } from "./versions.js";

/**
 * The dependencies a plan considers, read from the manifests and the
 * lockfile without asking a registry: each registry dependency with its
 * installed version; the ones on the workspace's own packages, which the
 * package manager links (counted, never bumped); and the rest, with why.
 */

export interface SkippedDependency {
  name: string;
  manifest: string;
  reason: string;
  /**
   * The section, when the manifest names the package in more than one
   * (typeorm's drivers, TanStack table's octane: a devDependency bumped, the
   * peer range left): without it the two lines read as one contradicting the other.
   */
  section?: DepSection;
}

export interface WantedDependency {
  entry: DepEntry;
  /** The version installed for this manifest (its lockfile entry, else the range's floor). */
  current: string;
  /** The registry package: an npm alias's target, else the dependency's name. */
  package: string;
  /** The range inside the spec (`~3.24.0` of `npm:lib@~3.24.0`). */
  range: string;
}

export interface DependencyList {
  wanted: WantedDependency[];
  skipped: SkippedDependency[];
  /** Dependencies on the workspace's own packages: the package manager links them. */
  internal: number;
}

/** Every registry dependency the config covers, with its installed version; no registry asked. */
export function listDependencies(
  project: NpmProject,
  config: Pick<DepsConfig, "depTypes" | "ignore">,
): DependencyList {
  const skipped: SkippedDependency[] = [];
  const wanted: WantedDependency[] = [];
  const workspaces = new Map<string, Manifest>();
  for (const manifest of project.manifests)
    if (manifest.name && !workspaces.has(manifest.name)) workspaces.set(manifest.name, manifest);
  const folders = new Set(project.manifests.map((m) => m.dir));
  let internal = 0;

  const firstUse = catalogFirstUse();
  for (const manifest of project.manifests) {
    for (const declared of manifest.deps) {
      if (!config.depTypes.includes(declared.section)) continue;
      const entry = resolveCatalog(project, declared) ?? declared;
      const skip = (reason: string) =>
        skipped.push({ name: entry.name, manifest: entry.manifest, reason });
      if (!firstUse(entry)) continue;
      const target = specTarget(entry.name, entry.spec);
      if (target.kind === "catalog")
        skip(
          entry.catalog !== undefined
            ? `a catalog entry that points at another catalog ("${entry.spec}")`
            : `a catalog entry ("${entry.spec}") that ${CATALOG_PLACES[project.manager.name] ?? `${project.manager.name}'s settings`} does not define`,
        );
      else if (target.kind === "workspace") internal += 1;
      else if (target.kind === "local") {
        const folder = posix.normalize(posix.join(manifest.dir || ".", target.path));
        if (folders.has(folder === "." ? "" : folder.replace(/\/$/, ""))) internal += 1;
        else skip("a local package (file:, link: or a path), not from a registry");
      } else if (target.kind === "other") skip(target.reason);
      else if (entry.section === "peerDependencies" && workspaces.has(target.package))
        // The workspace publishes that package: which of its releases a
        // sibling supports is for the project's own release to say (kit's
        // adapters keep "@sveltejs/kit": "^2.31.0" while kit 3 is developed
        // beside them), not for a registry release to move.
        internal += 1;
      else if (
        entry.catalog === undefined &&
        linksWorkspace(project, manifest, entry, target, workspaces)
      )
        internal += 1;
      else if (ignoresPackage(rulesFor(entry.name, config.ignore))) skip("ignored by deps.ignore");
      else {
        // A catalog entry's version is under its user's importer in the lockfile.
        const current =
          project.lockedVersionOf?.(manifest.dir, entry.name, entry.spec) ??
          specFloor(target.range);
        if (current) wanted.push({ entry, current, package: target.package, range: target.range });
        else skip(`cannot tell the installed version of "${entry.spec}"`);
      }
    }
  }
  return { wanted, skipped, internal };
}

/**
 * A `catalog:` spec as the catalog's own entry: declared in the catalog
 * file (pnpm-workspace.yaml, .yarnrc.yml, bun's package.json), with the
 * catalog's range. Undefined for any other spec, or a catalog that does not
 * have the package (the spec itself then says so).
 */
export function resolveCatalog(project: NpmProject, declared: DepEntry): DepEntry | undefined {
  const target = specTarget(declared.name, declared.spec);
  if (target.kind !== "catalog") return undefined;
  const range = project.catalogs.get(target.catalog)?.get(declared.name);
  if (range === undefined || !project.catalogFile) return undefined;
  return {
    name: declared.name,
    section: declared.section,
    spec: range,
    manifest: project.catalogFile,
    catalog: target.catalog,
    usedBy: declared.manifest,
  };
}

/** Where a catalog the spec names would be, per tool, for the reason it is left out. */
const CATALOG_PLACES: Partial<Record<string, string>> = {
  pnpm: "pnpm-workspace.yaml",
  "yarn-berry": ".yarnrc.yml",
  bun: "the root package.json",
};

/**
 * Whether an entry is seen for the first time, counting a catalog's entry
 * once however many manifests use it; any other entry is always new.
 */
export function catalogFirstUse(): (entry: DepEntry) => boolean {
  const seen = new Set<string>();
  return (entry) => {
    if (entry.catalog === undefined) return true;
    const key = `${entry.catalog}\0${entry.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

/** A location's catalog fields, for an entry that is a catalog's. */
export function catalogOf(entry: DepEntry): { catalog?: string; usedBy?: string } {
  return entry.catalog === undefined
    ? {}
    : { catalog: entry.catalog, ...(entry.usedBy ? { usedBy: entry.usedBy } : {}) };
}

/**
 * A registry range on a name the workspace has is linked to that package
 * only when the package's own version satisfies the range and the
 * lockfile links it (without a lockfile that says, the range decides, as
 * npm does). A package that depends on a published version of itself (a
 * formatter formatting its own sources with its last release) is not.
 */
function linksWorkspace(
  project: NpmProject,
  manifest: Manifest,
  entry: DepEntry,
  target: { package: string; range: string },
  workspaces: ReadonlyMap<string, Manifest>,
): boolean {
  const workspace = workspaces.get(target.package);
  if (!workspace) return false;
  const inRange = workspace.version
    ? satisfies(workspace.version, target.range, { includePrerelease: true })
    : target.range === "*";
  if (!inRange) return false;
  const linked = project.linkedOf?.(manifest.dir, entry.name, entry.spec);
  return linked ?? true;
}
