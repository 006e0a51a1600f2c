import { shellQuote } from "../../../agent/tools/fs/text-file.js";
import { ageMinutes } from "../age-gate.js";
import { toolCommand } from "../tool-command.js";
import type { PackageManager, Relock } from "../types.js";
import { readPnpmLockfile } from "./lockfile.js";

/**
 * pnpm, run through corepack by default so the version the project pins
 * is the one used. An in-range update is `pnpm update name@version
 * --no-save --lockfile-only` per project, which locks the plan's own
 * version and leaves package.json alone.
 */

export const pnpm: PackageManager = {
  name: "pnpm",
  label: "pnpm",
  tool: "pnpm",
  lockfiles: ["pnpm-lock.yaml"],
  claims: () => true,
  readLockfile: readPnpmLockfile,
  commands: (detected, tools) => {
    const hasLock = detected.lockfile !== undefined;
    const run = toolCommand(pnpm, tools);
    return {
      // minimumReleaseAge (pnpm 10.16+): a range resolves to a version older than the cutoff.
      lockfile: (before, relock = []) => {
        const gate = before ? ` --config.minimum-release-age=${ageMinutes(before)}` : "";
        // The install first, also before a relock: a filtered `pnpm update` locks what the
        // other projects' manifests say in pnpm 8 to 11, but pnpm 12 (12.26) keeps another
        // member's old range in the lockfile, which `--frozen-lockfile` then refuses.
        return [
          `${run} install --lockfile-only --ignore-scripts${gate}`,
          ...pnpmRelockCommands(run, relock, gate),
        ].join(" && ");
      },
      install: hasLock ? `${run} install --frozen-lockfile` : `${run} install`,
      reinstall: hasLock
        ? `${run} install --frozen-lockfile --prefer-offline`
        : `${run} install --prefer-offline`,
      test: `${run} test`,
      // pnpm 11 and later read `pnpm_config_*` only; pnpm 10 and earlier `npm_config_*`.
      registryEnv: (registry) => pnpmSettings({ registry }),
      cacheEnv: (dir) => pnpmSettings({ store_dir: dir, cache_dir: dir }),
    };
  },
  pinsKeptRanges: false,
  readsInstalledTree: false,
  peerOutcome: "pnpm would install it and report an unmet peer",
  launcher: {
    command: "corepack pnpm",
    whenMissing: "install corepack (Node 25 and later no longer ship it: npm install -g corepack)",
  },
  releasePackage: () => "pnpm",
};

/** pnpm's update of each project's in-range packages to the plan's versions. */
export function pnpmRelockCommands(
  command: string,
  relock: readonly Relock[],
  flags: string,
): string[] {
  const byDir = new Map<string, string[]>();
  for (const { name, version, dirs } of relock) {
    for (const dir of dirs) byDir.set(dir, [...(byDir.get(dir) ?? []), `${name}@${version}`]);
  }
  // --filter: a name given to a whole workspace would be locked at this version in every project, whatever its range.
  return [...byDir].map(
    ([dir, specs]) =>
      `${command} update --filter ${shellQuote(dir ? `{./${dir}}` : "{.}")} ${specs.map(shellQuote).join(" ")} --no-save --lockfile-only --ignore-scripts${flags}`,
  );
}

/**
 * Settings as environment variables every pnpm reads: pnpm 11 ignores
 * `npm_config_*` (its store went to the workspace's `.pnpm-store`, its cache
 * to the sandbox's throwaway HOME), and pnpm 10 knows no `pnpm_config_*`.
 */
export function pnpmSettings(settings: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(settings).flatMap(([name, value]) => [
      [`npm_config_${name}`, value],
      [`pnpm_config_${name}`, value],
    ]),
  );
}
