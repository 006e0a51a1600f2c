import type { PackageManager } from "../types.js";
import { forgetInPackageLock, readNpmLockfile } from "./lockfile.js";

/**
 * npm, the default: a project with no lockfile and no `packageManager`
 * field is npm's. It comes with the Node that runs us, so it needs no
 * launcher and no check that it starts.
 */

// On every install of a job: the plan's own security check asked the registry's
// advisories already, and npm would ask again after each install (with the setup
// sandbox's network) only to print them, and add a funding notice.
const QUIET = "--no-audit --no-fund";

// --prefer-offline: packuments an earlier group fetched in this job are fresh enough.
const LOCKFILE_STEP = `npm install --package-lock-only --ignore-scripts ${QUIET} --prefer-offline`;

export const npm: PackageManager = {
  name: "npm",
  label: "npm",
  tool: "npm",
  lockfiles: ["npm-shrinkwrap.json", "package-lock.json"],
  claims: () => true,
  readLockfile: readNpmLockfile,
  commands: (detected) => {
    const hasLock = detected.lockfile !== undefined;
    return {
      lockfile: (before) =>
        before ? `${LOCKFILE_STEP} --before=${before.toISOString()}` : LOCKFILE_STEP,
      install: hasLock ? `npm ci ${QUIET}` : `npm install --no-package-lock ${QUIET}`,
      reinstall: hasLock
        ? `npm install --prefer-offline ${QUIET}`
        : `npm install --no-package-lock --prefer-offline ${QUIET}`,
      test: "npm test",
      registryEnv: (registry) => ({ npm_config_registry: registry }),
      cacheEnv: (dir) => ({ npm_config_cache: dir }),
    };
  },
  // The package's entries are dropped and the lockfile step resolves the range again, under --before.
  forgetLocked: (lockText, relock) =>
    forgetInPackageLock(
      lockText,
      relock.map((r) => r.name),
    ),
  pinsKeptRanges: false,
  readsInstalledTree: true,
  peerOutcome: "npm would override it with a warning",
  releasePackage: () => "npm",
};
