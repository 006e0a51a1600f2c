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
}

/**
 * The new version's install scripts that package.json's `allowScripts`
 * (npm 11.16+) neither approves nor denies: npm 12 skips them on install.
 */
export interface UnapprovedScripts {
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
  /** Set when package.json's `allowScripts` leaves the new version's install scripts unreviewed. */
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
