import type { Update } from "../update.js";
import { lockfileManager } from "./index.js";
import type { Relock } from "./types.js";

/**
 * In-range updates move the lockfile only: package.json keeps its range and
 * the lockfile takes the newer version inside it. Each tool does it its own
 * way, the one that leaves package.json alone and honours the age gate:
 * - npm and yarn 1: the lockfile entries are dropped and the lockfile
 *   step resolves the range again as on a first install (npm
 *   under --before; yarn 1 has no age gate, so the locked-version check
 *   refuses a version newer than the plan's);
 * - pnpm: `pnpm update name@version --no-save --lockfile-only` per project,
 *   which locks the plan's own version and leaves package.json alone;
 * - yarn 2+: `yarn up -R name`, which resolves every range of the name
 *   again, inside the ranges, under the age gate;
 * - bun: each kept range is pinned at the plan's version in package.json
 *   for a first lockfile step, then put back for a second one, which keeps
 *   the pinned version since the range allows it (bump.ts). `bun update
 *   name@version` writes the version into package.json and bun.lock's
 *   record of the range, and `bun update name` takes the newest version in
 *   range under the age gate, which need not be the plan's.
 */

/** A range written in place of another in one manifest (bump.ts's ManifestEdit). */
export interface PinEdit {
  section: string;
  name: string;
  spec: string;
  catalog?: string;
}

/** The updates of a bump that leave a range as it is, per package and version. */
export function relockTargets(updates: readonly Update[]): Relock[] {
  return updates
    .map((update) => {
      const kept = update.locations.filter((l) => l.newSpec === null);
      return {
        name: update.name,
        version: update.to,
        // A catalog entry is relocked in its user's project.
        dirs: [...new Set(kept.map((l) => manifestDir(l.usedBy ?? l.manifest)))],
        specs: [...new Set(kept.map((l) => l.spec))],
        locations: kept.map(({ manifest, section, spec, catalog }) => ({
          manifest,
          section,
          spec,
          ...(catalog !== undefined ? { catalog } : {}),
        })),
      };
    })
    .filter((relock) => relock.dirs.length > 0);
}

/**
 * The lockfile without the entries `relock` moves, for the tools that
 * resolve what their lockfile lacks (npm's package-lock.json: the
 * package's entries; yarn 1's yarn.lock: the entries of the kept ranges,
 * so other ranges of the package elsewhere in the tree stay where they
 * are); undefined for the lockfiles whose tool is asked by command instead.
 */
export function forgetLocked(
  lockfilePath: string,
  text: string,
  relock: readonly Relock[],
): string | undefined {
  if (relock.length === 0) return undefined;
  return lockfileManager(lockfilePath, text)?.forgetLocked?.(text, relock);
}

/**
 * The manifests' kept ranges pinned at the plan's versions, for the tools
 * that lock an exact spec exactly and keep a locked version its range
 * still allows (bun); empty for the others.
 */
export function pinnedRanges(
  lockfilePath: string,
  relock: readonly Relock[],
): Map<string, PinEdit[]> {
  const byManifest = new Map<string, PinEdit[]>();
  if (!lockfileManager(lockfilePath)?.pinsKeptRanges) return byManifest;
  for (const { name, version, locations } of relock) {
    for (const { manifest, section, catalog } of locations) {
      byManifest.set(manifest, [
        ...(byManifest.get(manifest) ?? []),
        { section, name, spec: version, ...(catalog !== undefined ? { catalog } : {}) },
      ]);
    }
  }
  return byManifest;
}

function manifestDir(manifest: string): string {
  return manifest.includes("/") ? manifest.slice(0, manifest.lastIndexOf("/")) : "";
}
