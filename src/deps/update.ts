import { major, minor } from "semver";
import type { DepType, UpdateType } from "./config.js";
import type { Advisory } from "./registry/registry.js";
import type { ReleaseLinks } from "./registry/release-notes.js";

/**
 * An update: what the plan proposes, a package manager applies, a group
 * commits and a pull request describes. It lives here, below every phase
 * that passes it along, so none of them has to import the phase that
 * makes it (plan/outdated.ts).
 */

export interface UpdateLocation {
  manifest: string;
  /** The package.json section, or its `packageManager` field. */
  section: DepType | "packageManager";
  spec: string;
  /** The spec to write, or null when the range already allows the new version (lockfile only). */
  newSpec: string | null;
  /** The version this manifest has now (workspaces of one repository can differ). */
  from: string;
  /**
   * Set when the range is a catalog's entry: the catalog ("default" for
   * `catalog:`, else its name in `catalogs:`), `manifest` being the catalog
   * file (pnpm-workspace.yaml, .yarnrc.yml, bun's package.json).
   */
  catalog?: string;
  /** A catalog entry's first user (a package.json): the lockfile holds the version under its importer. */
  usedBy?: string;
  /** The `packageManager` field only: the release file the project keeps, replaced by the new release's. */
  release?: ReleaseSwap;
}

/**
 * A release file the project keeps and runs instead of the tool (yarn's
 * `yarnPath`), replaced as `yarn set version` replaces it: the new
 * release's file written, the settings pointed at it, the old one removed.
 * Paths from the repository's root.
 */
export interface ReleaseSwap {
  /** The new release's file (`.yarn/releases/yarn-4.18.1.cjs`). */
  file: string;
  /** The settings file that names it (`.yarnrc.yml`'s `yarnPath`). */
  settings: string;
  /** The file it replaces, removed in the commit (the job's commands start the tool by it, see release-file.ts). */
  replaces?: string;
  /** The registry package and file the release's bytes come from (`@yarnpkg/cli-dist`, `bin/yarn.js`). */
  from: { package: string; file: string };
}

/** The tool whose install-script settings a project keeps (deps/plan/install-scripts.ts). */
export type ScriptTool = "npm" | "pnpm";

export type ScriptApproval = "allowed" | "denied" | "unreviewed";

/** A project's install-script settings, read by its tool's rules (npm's, plan/install-scripts.ts; pnpm's, plan/pnpm-builds.ts). */
export interface ScriptPolicy {
  /** Whose settings: the pull request names them and the command that approves. */
  tool: ScriptTool;
  approval(name: string, version: string): ScriptApproval;
  /** The entries that approve other versions of `name`: the pin a bump leaves behind. */
  pinsOf(name: string): string[];
}

/**
 * The new version's install scripts that the project's policy neither
 * approves nor denies (package.json's `allowScripts`, npm 11.16+; pnpm's
 * `allowBuilds` or `onlyBuiltDependencies`): npm 12 and pnpm 10 skip them.
 */
export interface UnapprovedScripts {
  tool: ScriptTool;
  scripts: string[];
  /** The field's approvals of other versions of the package (`esbuild@0.25.0`): the pin a bump leaves behind. */
  otherVersions: string[];
}

export interface Update {
  /** The dependency's name in package.json (an npm alias's own name). */
  name: string;
  /** Set when the dependency is an npm alias: the package it installs from the registry. */
  package?: string;
  /** The lowest version among the locations (each has its own `from`). */
  from: string;
  to: string;
  /** The biggest kind of change among the locations. */
  type: UpdateType;
  publishedAt?: string;
  locations: UpdateLocation[];
  links: ReleaseLinks;
  /** Install scripts the new version has and the old one did not (preinstall, install, postinstall). */
  newInstallScripts: string[];
  /** Set when the project's install-script policy leaves the new version's scripts unreviewed. */
  unapprovedScripts?: UnapprovedScripts;
  /** Newer versions of the same kind that were passed over, and why: "2.1.0: released 1 day ago, …". */
  passedOver: string[];
  /** Set on security updates: the advisories the current version has and this one fixes. */
  advisories?: Advisory[];
}

/** The kind of change `from` -> `to`. Below 1.0.0 npm's caret treats a minor (0.x) or patch (0.0.x) as breaking. */
export function updateType(from: string, to: string): UpdateType {
  if (major(to) !== major(from)) return "major";
  if (major(from) === 0 && minor(to) !== minor(from)) return "major";
  if (major(from) === 0 && minor(from) === 0) return "major";
  return minor(to) !== minor(from) ? "minor" : "patch";
}
