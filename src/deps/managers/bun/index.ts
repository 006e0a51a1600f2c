import { ageSeconds } from "../age-gate.js";
import { toolCommand } from "../tool-command.js";
import type { PackageManager } from "../types.js";
import { readBunLockfile } from "./lockfile.js";

/**
 * bun: corepack does not manage it, so it is the one on the PATH (the
 * Docker image installs it in /usr/local/bin). It has no way to lock a
 * given version inside a range: each kept range is pinned at the plan's
 * version in package.json for a first lockfile step, then put back for a
 * second one, which keeps the pinned version since the range allows it
 * (bump.ts). `bun update name@version` writes the version into
 * package.json and bun.lock's record of the range, and `bun update name`
 * takes the newest version in range under the age gate, which need not be the plan's.
 */

/**
 * bun's old binary lockfile: its diff cannot be reviewed in a pull request,
 * and what bun locked cannot be checked against the plan without running
 * bun on the host; bun 1.2+ writes and prefers the text one.
 */
const BINARY_LOCK =
  "bun.lockb is bun's binary lockfile, which patchwright cannot read or show in a pull request; switch to the text lockfile with `bun install --save-text-lockfile` (bun 1.2+), commit bun.lock and delete bun.lockb";

export const bun: PackageManager = {
  name: "bun",
  label: "bun",
  tool: "bun",
  lockfiles: ["bun.lock", "bun.lockb"],
  claims: () => true,
  lockfileProblem: (lockfile) => (lockfile === "bun.lockb" ? BINARY_LOCK : undefined),
  readLockfile: readBunLockfile,
  commands: (detected, tools) => {
    const hasLock = detected.lockfile !== undefined;
    const run = toolCommand(bun, tools);
    return {
      // minimumReleaseAge (bun 1.3+), in seconds; the flag outranks bunfig.toml.
      lockfile: (before) =>
        `${run} install --lockfile-only --ignore-scripts --no-progress${before ? ` --minimum-release-age=${ageSeconds(before)}` : ""}`,
      install: hasLock
        ? `${run} install --frozen-lockfile --no-progress`
        : `${run} install --no-progress`,
      reinstall: hasLock
        ? `${run} install --frozen-lockfile --prefer-offline --no-progress`
        : `${run} install --prefer-offline --no-progress`,
      // package.json's "test" script, as the other tools run it; `bun test` is bun's own runner.
      test: `${run} run test`,
      // bun reads the project's .npmrc too (scoped registries, tokens); these set the default one.
      registryEnv: (registry) => ({ BUN_CONFIG_REGISTRY: registry, NPM_CONFIG_REGISTRY: registry }),
      cacheEnv: (dir) => ({ BUN_INSTALL_CACHE_DIR: dir }),
    };
  },
  pinsKeptRanges: true,
  readsInstalledTree: false,
  peerOutcome: "bun would install it with a peer warning",
  launcher: {
    command: "bun",
    whenMissing:
      "install bun in a folder the sandbox shows (a system folder such as /usr/local/bin, where the Docker image has it, or a toolchain's on the PATH: oven-sh/setup-bun's ~/.bun/bin is one; not patchwright's own folder)",
  },
  releasePackage: () => "bun",
};
