import { basename, dirname, join } from "node:path";
import { readWorkspaceText } from "../../sandbox/host-files.js";
import { scriptedPackages } from "../managers/npm/lockfile.js";
import { newlyLockedUnreviewed, type UnreviewedPackage } from "../plan/install-scripts.js";

const NPM_LOCKFILES = new Set(["package-lock.json", "npm-shrinkwrap.json"]);

/**
 * The packages with install scripts the group's lockfile newly locks and
 * package.json's `allowScripts` leaves unreviewed (plan/install-scripts.ts):
 * what npm 12 will skip once this pull request is merged. npm's lockfile
 * only; none when there is nothing to compare (no base lockfile) or a file
 * cannot be read, which the install has already said.
 */
export async function lockedScriptsToReview(options: {
  dir: string;
  lockfilePath: string | undefined;
  /** The lockfile as the base has it. */
  before: Buffer | null | undefined;
}): Promise<UnreviewedPackage[]> {
  const { dir, lockfilePath, before } = options;
  if (!lockfilePath || !before || !NPM_LOCKFILES.has(basename(lockfilePath))) return [];
  try {
    const manifest = JSON.parse(
      await readWorkspaceText(dir, join(dirname(lockfilePath), "package.json")),
    ) as { allowScripts?: unknown } | null;
    return newlyLockedUnreviewed(
      manifest?.allowScripts,
      scriptedPackages(before.toString("utf8")),
      scriptedPackages(await readWorkspaceText(dir, lockfilePath)),
    );
  } catch {
    return [];
  }
}
