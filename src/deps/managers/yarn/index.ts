import { join } from "node:path";
import { shellQuote } from "../../../agent/tools/fs/text-file.js";
import { ageMinutes } from "../age-gate.js";
import { toolCommand } from "../tool-command.js";
import type { PackageManager, Relock } from "../types.js";
import { forgetInYarnClassic, isBerryLockfile, readYarnLockfile } from "./lockfile.js";
import { yarnReleaseFile, yarnReleaseSwap } from "./release-file.js";

/**
 * Yarn 1 (classic) and yarn 2+ (berry): one `packageManager` tool and one
 * lockfile name, two tools. Berry when the pinned version is 2 or later or
 * the lockfile is berry's YAML; classic otherwise. Both run through
 * corepack by default, so the version the project pins is the one used.
 */

const isBerry = (evidence: { version?: string | undefined; lockText?: string | undefined }) =>
  Boolean(
    (evidence.version && !evidence.version.startsWith("1.")) ||
      (evidence.lockText !== undefined && isBerryLockfile(evidence.lockText)),
  );

const shared = {
  label: "yarn",
  tool: "yarn",
  lockfiles: ["yarn.lock"],
  readLockfile: readYarnLockfile,
  pinsKeptRanges: false,
  readsInstalledTree: false,
  // yarn 2+ is published as `@yarnpkg/cli-dist`, which is what corepack installs.
  releasePackage: (version: string) => (/^1\./.test(version) ? "yarn" : "@yarnpkg/cli-dist"),
  releaseSwap: yarnReleaseSwap,
  releaseFile: yarnReleaseFile,
} as const;

const launcher = {
  command: "corepack yarn",
  whenMissing: "install corepack (Node 25 and later no longer ship it: npm install -g corepack)",
};

export const yarnClassic: PackageManager = {
  ...shared,
  name: "yarn-classic",
  claims: (evidence) => !isBerry(evidence),
  commands: (detected, tools) => {
    const yarn = toolCommand(yarnClassic, tools, detected);
    return {
      // Yarn 1 has no lockfile-only mode: this installs too, without scripts. It
      // has no age gate either: the locked-version check (locked-check.ts) catches a range it resolves too new.
      lockfile: () => `${yarn} install --ignore-scripts --non-interactive --no-progress`,
      install: `${yarn} install --frozen-lockfile --non-interactive --no-progress`,
      reinstall: `${yarn} install --frozen-lockfile --non-interactive --no-progress --prefer-offline`,
      test: `${yarn} test`,
      registryEnv: (registry) => ({ npm_config_registry: registry, YARN_REGISTRY: registry }),
      cacheEnv: (dir) => ({ YARN_CACHE_FOLDER: dir }),
    };
  },
  // The kept ranges' entries are dropped and the lockfile step resolves them again.
  forgetLocked: (lockText, relock) =>
    forgetInYarnClassic(
      lockText,
      relock.flatMap((r) => r.specs.map((spec) => `${r.name}@${spec}`)),
    ),
  peerOutcome: "yarn would install it with an incorrect-peer warning",
  launcher,
};

export const yarnBerry: PackageManager = {
  ...shared,
  name: "yarn-berry",
  claims: isBerry,
  commands: (detected, tools) => {
    const yarn = toolCommand(yarnBerry, tools, detected);
    return {
      // npmMinimalAgeGate (yarn 4.10+), in minutes; the variable outranks .yarnrc.yml.
      lockfile: (before, relock = []) =>
        `${before ? `YARN_NPM_MINIMAL_AGE_GATE=${ageMinutes(before)} ` : ""}${relock.length > 0 ? yarnBerryRelockCommand(yarn, relock) : `${yarn} install --mode=update-lockfile`}`,
      install: `${yarn} install --immutable`,
      reinstall: `${yarn} install --immutable`,
      test: `${yarn} test`,
      registryEnv: (registry) => ({
        YARN_NPM_REGISTRY_SERVER: registry.replace(/\/$/, ""),
        // A loopback or company registry over plain http is the operator's choice in .npmrc.
        ...(registry.startsWith("http:")
          ? { YARN_UNSAFE_HTTP_WHITELIST: new URL(registry).hostname }
          : {}),
        YARN_ENABLE_TELEMETRY: "0",
        YARN_ENABLE_GLOBAL_CACHE: "false",
      }),
      // A folder of its own: yarn 2+ deletes whatever else is in its cache folder when it
      // installs, corepack's home beside it included (verify then had to fetch yarn again).
      cacheEnv: (dir) => ({ YARN_CACHE_FOLDER: join(dir, "yarn") }),
    };
  },
  peerOutcome: "yarn would install it with an incompatible-peer warning",
  launcher,
};

/** yarn 2+'s resolution of the names again inside their ranges (`yarn up -R`), under the age gate. */
export function yarnBerryRelockCommand(yarn: string, relock: readonly Relock[]): string {
  const names = [...new Set(relock.map((r) => r.name))].map(shellQuote).join(" ");
  return `${yarn} up -R ${names} --mode=update-lockfile`;
}
