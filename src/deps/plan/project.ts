import { readdir } from "node:fs/promises";
import { join, posix } from "node:path";
import picomatch from "picomatch";
import { parse as parseYaml } from "yaml";
import { parseJsonText } from "../../json-text.js";
import { readWorkspaceFile, readWorkspaceText } from "../../sandbox/host-files.js";
import { detectPackageManager, packageManager } from "../managers/index.js";
import type {
  DetectedManager,
  LinkedOf,
  LockedGraph,
  LockedPeers,
  LockedVersionOf,
} from "../managers/types.js";
import { type Override, readOverrides } from "./overrides.js";
import { pnpmTrustPolicy, type TrustPolicy } from "./trust-policy.js";

/**
 * An npm project as the bump job sees it: the root package.json, its
 * workspaces' package.json files and the lockfile, read as text so edits can
 * keep every byte they do not change.
 */

export const DEP_SECTIONS = [
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "optionalDependencies",
] as const;
export type DepSection = (typeof DEP_SECTIONS)[number];

export interface DepEntry {
  name: string;
  section: DepSection;
  /** The spec as written: "^1.2.3", "~1.0.0", "1.0.0", "git+https://…". */
  spec: string;
  /** The manifest that declares it (relative, posix): "package.json", "packages/a/package.json". */
  manifest: string;
  /** A catalog entry's catalog, `manifest` being the catalog file (see UpdateLocation). */
  catalog?: string;
  /** A catalog entry's first user (a package.json). */
  usedBy?: string;
}

export interface Manifest {
  path: string;
  /** Its directory, relative ("" for the root). */
  dir: string;
  name: string | undefined;
  /** Its own version, which a dependency on it by a range must satisfy to be linked. */
  version: string | undefined;
  text: string;
  json: Record<string, unknown>;
  deps: DepEntry[];
}

export interface NpmProject {
  dir: string;
  manifests: Manifest[];
  lockfilePath: string | undefined;
  /** npm, pnpm, yarn (classic or berry) or bun, and its lockfile. */
  manager: DetectedManager;
  /** Installed versions from the lockfile, when there is one. */
  lockedVersionOf?: LockedVersionOf;
  /** Whether the lockfile links a dependency to a workspace package. */
  linkedOf?: LinkedOf;
  /** Packages the lockfile holds with the peers they declare (npm's records them). */
  lockedPeers: Map<string, LockedPeers>;
  /** The packages the project does not name itself, when the lockfile records them (npm's). */
  lockedGraph?: (direct: ReadonlySet<string>) => LockedGraph;
  /**
   * The catalogs `catalog:` dependencies take their ranges from: per catalog
   * ("default" for `catalog:`), each package's range; read from
   * `catalogFile` (pnpm's pnpm-workspace.yaml, yarn 4's .yarnrc.yml, bun's package.json).
   */
  catalogs: Map<string, Map<string, string>>;
  catalogFile?: string;
  /** pnpm's `trustPolicy: no-downgrade`, when a pnpm project sets it. */
  trustPolicy?: TrustPolicy;
  /** What the package manager installs whatever the manifests say (overrides.ts). */
  overrides: Override[];
}

export class ProjectError extends Error {
  override name = "ProjectError";
}

export async function readNpmProject(dir: string): Promise<NpmProject> {
  const rootText = await readWorkspaceText(dir, "package.json").catch(() => {
    throw new ProjectError(`no package.json in ${dir}: dependency bumps need an npm project`);
  });
  const root = parseManifest("package.json", rootText);
  const manifests = [root];
  const pnpmWorkspace = await readYamlFile(dir, "pnpm-workspace.yaml");
  const patterns = [...workspacePatterns(root.json), ...pnpmPackages(pnpmWorkspace)];
  for (const path of await findWorkspaceManifests(dir, [...new Set(patterns)])) {
    const text = await readWorkspaceText(dir, path);
    manifests.push(parseManifest(path, text));
  }
  const manager = await detectPackageManager(dir, root.json);
  const tool = packageManager(manager.name);
  const lockfilePath = manager.lockfile;
  const problem = lockfilePath ? tool.lockfileProblem?.(lockfilePath) : undefined;
  if (problem) throw new ProjectError(problem);
  const project: NpmProject = {
    dir,
    manifests,
    lockfilePath,
    manager,
    lockedPeers: new Map(),
    catalogs: new Map(),
    overrides: readOverrides(manager.name, root.json, pnpmWorkspace),
  };
  const trustPolicy = manager.name === "pnpm" ? pnpmTrustPolicy(pnpmWorkspace) : undefined;
  if (trustPolicy) project.trustPolicy = trustPolicy;
  // The same shape in either file: `catalog:` and `catalogs.<name>`.
  const catalogFile = CATALOG_FILES[manager.name];
  if (catalogFile) {
    project.catalogs =
      catalogFile === "package.json"
        ? bunCatalogs(root.json)
        : readCatalogs(
            catalogFile === "pnpm-workspace.yaml"
              ? pnpmWorkspace
              : // yarn reads .yarnrc.yml itself, and says what is wrong with it.
                await readYamlFile(dir, catalogFile).catch(() => undefined),
          );
    if (project.catalogs.size > 0) project.catalogFile = catalogFile;
  }
  if (lockfilePath) {
    const text = await readWorkspaceText(dir, lockfilePath);
    try {
      const reader = tool.readLockfile(text);
      project.lockedVersionOf = reader.versionOf;
      project.linkedOf = reader.linkedOf;
      project.lockedPeers = reader.peerDeclarers();
      if (reader.lockedGraph) project.lockedGraph = reader.lockedGraph;
    } catch (error) {
      throw new ProjectError(
        `${lockfilePath} cannot be read (${(error as Error).message}); fix or regenerate it first`,
      );
    }
  }
  return project;
}

function parseManifest(path: string, text: string): Manifest {
  let json: Record<string, unknown>;
  try {
    // Its text keeps a byte order mark for the edits.
    json = parseJsonText(text) as Record<string, unknown>;
  } catch (error) {
    throw new ProjectError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const deps: DepEntry[] = [];
  for (const section of DEP_SECTIONS) {
    const block = json[section];
    if (!block || typeof block !== "object") continue;
    for (const [name, spec] of Object.entries(block)) {
      if (typeof spec === "string") deps.push({ name, section, spec, manifest: path });
    }
  }
  const dir = posix.dirname(path) === "." ? "" : posix.dirname(path);
  const name = typeof json.name === "string" ? json.name : undefined;
  const version = typeof json.version === "string" ? json.version : undefined;
  return { path, dir, name, version, text, json, deps };
}

function workspacePatterns(json: Record<string, unknown>): string[] {
  const field = json.workspaces;
  const list = Array.isArray(field)
    ? field
    : field &&
        typeof field === "object" &&
        Array.isArray((field as { packages?: unknown }).packages)
      ? (field as { packages: unknown[] }).packages
      : [];
  return list.filter((p): p is string => typeof p === "string");
}

/** pnpm names its workspaces in pnpm-workspace.yaml's `packages:`, not in package.json. */
function pnpmPackages(doc: unknown): string[] {
  const packages = (doc as { packages?: unknown } | null)?.packages;
  return Array.isArray(packages) ? packages.filter((p): p is string => typeof p === "string") : [];
}

/** Where each tool keeps its catalogs (yarn from 4.10, bun from 1.2.14). */
const CATALOG_FILES: Partial<Record<string, string>> = {
  pnpm: "pnpm-workspace.yaml",
  "yarn-berry": ".yarnrc.yml",
  bun: "package.json",
};

/** bun's: `workspaces.catalog(s)` in the root package.json, or the same at its top level. */
function bunCatalogs(json: Record<string, unknown>): Map<string, Map<string, string>> {
  const workspaces = json.workspaces;
  const nested =
    workspaces && typeof workspaces === "object" && !Array.isArray(workspaces)
      ? readCatalogs(workspaces)
      : new Map<string, Map<string, string>>();
  for (const [name, entries] of readCatalogs(json)) {
    const merged = nested.get(name) ?? new Map<string, string>();
    for (const [pkg, range] of entries) if (!merged.has(pkg)) merged.set(pkg, range);
    nested.set(name, merged);
  }
  return nested;
}

/** A YAML file of the project, parsed; undefined without one. */
async function readYamlFile(dir: string, path: string): Promise<unknown> {
  const text = await readWorkspaceText(dir, path).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return parseYaml(text);
  } catch (error) {
    throw new ProjectError(`${path} is not valid YAML: ${(error as Error).message}`);
  }
}

/**
 * A catalog file's catalogs: `catalog:` is the default one (`catalogs.default`
 * too), `catalogs.<name>` the named ones; each maps a package to its range.
 */
function readCatalogs(doc: unknown): Map<string, Map<string, string>> {
  const catalogs = new Map<string, Map<string, string>>();
  const add = (name: string, block: unknown) => {
    if (!block || typeof block !== "object" || Array.isArray(block)) return;
    const entries = catalogs.get(name) ?? new Map<string, string>();
    for (const [pkg, range] of Object.entries(block)) {
      if (typeof range === "string") entries.set(pkg, range);
    }
    catalogs.set(name, entries);
  };
  const { catalog, catalogs: named } = (doc ?? {}) as { catalog?: unknown; catalogs?: unknown };
  add("default", catalog);
  if (named && typeof named === "object")
    for (const [name, block] of Object.entries(named)) add(name, block);
  return catalogs;
}

const SKIP_DIRS = new Set(["node_modules", ".git"]);
const MAX_DEPTH = 4;

/** Directories matching the workspace globs (npm's `packages/*` style) that hold a package.json. */
async function findWorkspaceManifests(root: string, patterns: string[]): Promise<string[]> {
  if (patterns.length === 0) return [];
  const include = patterns.filter((p) => !p.startsWith("!")).map(normalizePattern);
  const exclude = patterns
    .filter((p) => p.startsWith("!"))
    .map((p) => normalizePattern(p.slice(1)));
  const isIncluded = picomatch(include);
  const isExcluded = exclude.length > 0 ? picomatch(exclude) : () => false;
  const found: string[] = [];
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) return;
    const entries = await readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory() || SKIP_DIRS.has(entry.name)) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (isIncluded(child) && !isExcluded(child)) {
        const hasManifest = await readWorkspaceFile(root, `${child}/package.json`).then(
          () => true,
          () => false,
        );
        if (hasManifest) found.push(`${child}/package.json`);
      }
      await walk(child, depth + 1);
    }
  };
  await walk("", 1);
  return found.sort();
}

function normalizePattern(pattern: string): string {
  return pattern.replace(/^\.\//, "").replace(/\/+$/, "");
}
