import picomatch from "picomatch";
import { lt } from "semver";
import type { DepsConfig } from "../config.js";
import type { Update } from "../update.js";
import type { SkippedDependency } from "./dependency-list.js";
import type { PeerCeiling, PeerCheck } from "./peers.js";

/**
 * The plan's regular (not security) updates: one open pull request per
 * package, the peer check, and the rounds that weigh a package again up to
 * an older release when that is what the other side of a peer range takes.
 */

/** Why a package's next update waits: the plan says it once, above the packages it holds back. */
export const ONE_AT_A_TIME = "one pull request per package at a time";

export interface RegularUpdatesOptions {
  candidates: readonly Update[];
  check: (updates: Update[]) => PeerCheck;
  config: DepsConfig;
  /** Packages never capped (security fixes: they ship alone, at the version that fixes). */
  fixed: ReadonlySet<string>;
  /** These packages weighed again, each up to its version (outdated.ts `ceilings`). */
  reweigh: (ceilings: ReadonlyMap<string, string>) => Promise<Update[]>;
}

/**
 * A family released apart: the members the peer check left out are weighed
 * again up to a release the other side takes, and checked again (a member
 * capped so may ask the same of another: a few rounds). One kept at its
 * newest stays so, and a cap that gets nothing in is dropped again: the
 * plan is then what it was, with its reasons.
 */
export async function regularUpdates(
  options: RegularUpdatesOptions,
): Promise<{ regular: Update[]; peers: PeerCheck }> {
  const { candidates, check, config } = options;
  const first = peerCheckedUpdates(candidates, check, config);
  // Each package's caps, highest first: the last is its version, and each says what it passed over.
  const capped = async (ceilings: ReadonlyMap<string, readonly PeerCeiling[]>) => {
    const weighed = await options.reweigh(
      new Map([...ceilings].map(([name, caps]) => [name, caps.at(-1)?.version ?? ""])),
    );
    for (const update of weighed) {
      const caps = ceilings.get(update.name) ?? [];
      update.passedOver.unshift(
        ...caps.map((c, i) => `${c.passed}: ${i === caps.length - 1 ? c.because : c.asks}`),
      );
    }
    // Each capped package where its first weighing was, so the plan's order stays.
    const placed = new Set<string>();
    const updates = candidates.flatMap((u) => {
      const name = u.package ?? u.name;
      if (!ceilings.has(name)) return [u];
      if (placed.has(name)) return [];
      placed.add(name);
      return weighed.filter((c) => (c.package ?? c.name) === name);
    });
    return peerCheckedUpdates(updates, check, config);
  };
  const keptNames = (peers: PeerCheck) => new Set(peers.updates.map((u) => u.package ?? u.name));
  let result = first;
  const ceilings = new Map<string, PeerCeiling[]>();
  // A cap only comes down (effect's vitest: capped to 4.1.12 for one member,
  // then to 4.1.11 for another whose newest is a release behind), so the rounds end.
  for (let round = 0; round < 4; round++) {
    const moving = keptNames(result.peers);
    const fresh = [...result.peers.ceilings].filter(([n, c]) => {
      const current = ceilings.get(n)?.at(-1)?.version;
      return !moving.has(n) && !options.fixed.has(n) && (!current || lt(c.version, current));
    });
    if (fresh.length === 0) break;
    for (const [name, ceiling] of fresh)
      ceilings.set(name, [...(ceilings.get(name) ?? []), ceiling]);
    result = await capped(ceilings);
  }
  const got = keptNames(result.peers);
  const useless = [...ceilings.keys()].filter((name) => !got.has(name));
  if (useless.length === 0) return result;
  for (const name of useless) ceilings.delete(name);
  return ceilings.size > 0 ? capped(ceilings) : first;
}

/**
 * The regular updates after one pull request per package and the peer
 * check. A major waits for its package's update inside the major; when the
 * peer check leaves that update out, nothing is there to wait for (astro's
 * root vitest 4 -> 5 waited for a 5.0 beta -> 5.1 bump in an example that
 * peer ranges held back), so the major is checked on its own again.
 */
function peerCheckedUpdates(
  candidates: readonly Update[],
  check: (updates: Update[]) => PeerCheck,
  config: DepsConfig,
): { regular: Update[]; peers: PeerCheck } {
  let remaining = [...candidates];
  const leftOut: SkippedDependency[] = [];
  // What each check found a cap for stands too: a later one runs without the
  // updates that met it (effect's @vitest/web-worker 4.1.11 asking for vitest "4.1.11").
  const ceilings = new Map<string, PeerCeiling>();
  for (;;) {
    const { kept: regular, waits } = onePerPackage(remaining, config);
    const peers = check(regular);
    for (const [name, ceiling] of peers.ceilings)
      if (!ceilings.has(name)) ceilings.set(name, ceiling);
    const keptByPeers = new Set(peers.updates);
    const gone = new Set(waits.filter((w) => !keptByPeers.has(w.first)).map((w) => w.first));
    if (gone.size === 0) {
      const skipped = [...leftOut, ...waits.map((w) => w.skipped), ...peers.skipped];
      return { regular, peers: { ...peers, skipped, ceilings } };
    }
    // What the peer check said of them stands; the next round runs without them
    // (and says again what it says of the rest).
    const saidOfGone = new Set(
      [...gone].flatMap((u) => u.locations.map((l) => `${u.name}\0${l.manifest}`)),
    );
    leftOut.push(...peers.skipped.filter((s) => saidOfGone.has(`${s.name}\0${s.manifest}`)));
    remaining = remaining.filter((u) => !gone.has(u));
  }
}

/**
 * One open pull request per package: when a package has both an update
 * inside its major (grouped) and a new major (alone), the major waits until
 * the first is merged, so the two never fight over one line of package.json.
 */
function onePerPackage(
  updates: readonly Update[],
  config: DepsConfig,
): { kept: Update[]; waits: Array<{ first: Update; skipped: SkippedDependency }> } {
  const nonMajor = new Map<string, Update[]>();
  for (const u of updates)
    if (u.type !== "major") nonMajor.set(u.name, [...(nonMajor.get(u.name) ?? []), u]);
  // The update it waits for: the one in its own package.json when there is one
  // (prisma's playground: vite 6.4.3 -> 6.4.6 there, not the catalog's 8.4.1).
  const awaited = (major: Update): Update | undefined => {
    const others = nonMajor.get(major.name) ?? [];
    const said = major.locations[0]?.manifest;
    const own = new Set(major.locations.map((l) => l.manifest));
    const inManifest = (manifests: { has(m: string): boolean }) =>
      others.find((u) => u.locations.some((l) => manifests.has(l.manifest)));
    return inManifest(new Set([said])) ?? inManifest(own) ?? others.at(-1);
  };
  const waits: Array<{ first: Update; skipped: SkippedDependency }> = [];
  const kept = updates.filter((update) => {
    const first = update.type === "major" ? awaited(update) : undefined;
    if (!first) return true;
    // A configured group that takes both holds one update (the newest), so nothing conflicts.
    const together = config.groups.some(
      (g) =>
        g.updateTypes.includes("major") &&
        g.updateTypes.includes(first.type) &&
        picomatch.isMatch(update.name, g.patterns),
    );
    if (together) return true;
    const said = update.locations[0];
    const manifest = said?.manifest ?? "package.json";
    // Moved elsewhere, maybe to the same version (vite's playground on tailwindcss 3 beside
    // its tailwind 4 ones): where it is says why this one waits.
    const others = [...new Set(first.locations.map((l) => l.manifest))];
    const where = others.includes(manifest)
      ? ""
      : ` in ${others[0]}${others.length > 1 ? ` and ${others.length - 1} more` : ""}`;
    waits.push({
      first,
      skipped: {
        name: update.name,
        manifest,
        // Its version where it is said: the major may go to the very version the other
        // update takes elsewhere (drizzle's bun-types 0.6.6 -> 1.4.5 beside ^1.2.0 -> 1.4.5).
        reason: `${said?.from ?? update.from} -> ${update.to} (major) waits until the update to ${first.to}${where} is merged: ${ONE_AT_A_TIME}`,
      },
    });
    return false;
  });
  return { kept, waits };
}
