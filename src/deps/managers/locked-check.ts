import { gte, satisfies } from "semver";
import { type Update, updateType } from "../update.js";
import { lockfileManager } from "./index.js";

/**
 * What the package manager actually locked, compared with what the plan
 * chose. The plan's version is the one that passed the cooldown, engines,
 * peers and deprecation checks; a tool that resolves a range on its own
 * (pnpm, yarn and bun take the newest in range) can lock another one, and a pull
 * request saying "2.0.0" while shipping 2.1.0 would be a lie.
 */

export interface LockedMismatch {
  update: Update;
  manifest: string;
  locked: string;
}

export function lockedMismatches(
  lockfilePath: string,
  text: string,
  updates: readonly Update[],
): LockedMismatch[] {
  const versionOf = lockReader(lockfilePath, text);
  const out: LockedMismatch[] = [];
  for (const update of updates) {
    for (const location of update.locations) {
      // package.json's packageManager is no dependency: the lockfile does not hold it.
      if (location.section === "packageManager") continue;
      // A catalog entry's version is under its user's importer.
      const manifest = location.usedBy ?? location.manifest;
      const dir = manifest.includes("/") ? manifest.slice(0, manifest.lastIndexOf("/")) : "";
      const locked = versionOf(dir, update.name, location.newSpec ?? location.spec);
      // Not found (a peer the tool does not install): nothing to compare, the install step decides.
      if (locked !== undefined && locked !== update.to) {
        out.push({ update, manifest: location.manifest, locked });
        break;
      }
    }
  }
  return out;
}

/** Why an update was refused, for the pull request and the job summary. */
export function mismatchReason(mismatch: LockedMismatch): string {
  const { update, locked } = mismatch;
  return `the package manager locked ${update.name} ${locked}, not ${update.to} as planned (the newer version failed the plan's checks, such as the cooldown); left out rather than shipped under the wrong version`;
}

/**
 * A security fix raises a range's floor to the lowest fixed version, and the
 * tool then locks the newest the range allows (npm audit fix does the same).
 * When that version is fixed too, it is the fix: the update is retold with
 * it, so the pull request names what it ships. Anything else is refused.
 */
export function retargetedFix(mismatch: LockedMismatch): Update | undefined {
  const { update, locked } = mismatch;
  const advisories = update.advisories ?? [];
  if (advisories.length === 0 || !gte(locked, update.to)) return undefined;
  const affected = advisories.some((a) => {
    try {
      return satisfies(locked, a.vulnerable_versions, { includePrerelease: true });
    } catch {
      return true;
    }
  });
  if (affected) return undefined;
  // What the plan read of the planned version's install scripts says nothing of this one.
  const { publishedAt: _planned, unapprovedScripts: _scripts, ...rest } = update;
  return { ...rest, to: locked, type: updateType(update.from, locked), passedOver: [] };
}

function lockReader(
  lockfilePath: string,
  text: string,
): (dir: string, name: string, spec: string) => string | undefined {
  const manager = lockfileManager(lockfilePath, text);
  if (!manager)
    throw new Error(`${lockfilePath} is no lockfile a supported package manager writes`);
  return manager.readLockfile(text).versionOf;
}
