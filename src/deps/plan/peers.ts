import { gt, lt, satisfies, validRange } from "semver";
import { packageManager } from "../managers/index.js";
import type { LockedPeers, ManagerName } from "../managers/types.js";
import type { Packument } from "../registry/registry.js";
import type { Update } from "../update.js";
import type { SkippedDependency } from "./dependency-list.js";
import { stableVersions } from "./versions.js";

/**
 * Peer ranges, checked as npm would see them after the bumps: for every
 * installed package that declares peers, its version after the plan against
 * its peers' versions after the plan. A bump that only works together with
 * another one (typescript-eslint and typescript) is linked to it, so both
 * land in one pull request; a bump that breaks a peer range nothing in the
 * plan repairs is left out with the range that stops it.
 */

export interface PeerCheck {
  updates: Update[];
  /** Sets of package names that must move together. */
  links: string[][];
  skipped: SkippedDependency[];
  /**
   * Updates left out whose package has an older release the other side's
   * new range takes, by package: the plan weighs them again up to it.
   */
  ceilings: Map<string, PeerCeiling>;
}

/**
 * A family whose members are released apart: @trpc/tanstack-react-query's
 * newest, 11.22.1, asks for @trpc/client "11.22.1" exactly while the client
 * is at 11.25.2. Each bump broke the other's exact range and both were left
 * out; 11.22.1 for all three is what the family supports.
 */
export interface PeerCeiling {
  /** The newest release the range takes, newer than the installed one. */
  version: string;
  /** The version the plan wanted first, passed over for it. */
  passed: string;
  /** Who asks: `@trpc/tanstack-react-query 11.22.1 asks for @trpc/client "11.22.1"`. */
  because: string;
  /**
   * The same without what the plan had at the time (`it asks for vite "^8.0.0"`),
   * for a cap a lower one replaced: that plan is not the final one.
   */
  asks: string;
}

export interface PeerContext {
  /** Peers the lockfile records for installed packages (no packument needed). */
  locked?: ReadonlyMap<string, LockedPeers>;
  manager?: ManagerName;
  /**
   * The packages the lockfile installs that the project does not name, at
   * their one version (npm's lockfile). An installed peer counts even when
   * it is declared optional: npm refuses the install (ERESOLVE) when a
   * version present in the tree is outside it, as lerna's @nx/eslint 23.1.3
   * asking for @nx/jest "23.1.3" beside a transitive 23.1.0 did.
   */
  transitive?: ReadonlyMap<string, string>;
  /**
   * What each package.json declares, at its installed version: a package's
   * peers resolve in the workspace that installs it first (babel's
   * webpack-4 fixture keeps webpack 4 beside a webpack-5 one).
   */
  installedIn?: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

export function checkPeers(
  updates: readonly Update[],
  direct: ReadonlyMap<string, string>,
  packuments: ReadonlyMap<string, Packument>,
  context: PeerContext = {},
): PeerCheck {
  const locked: ReadonlyMap<string, LockedPeers> = context.locked ?? new Map();
  const manager = context.manager ?? "npm";
  const installed = new Map([...(context.transitive ?? []), ...direct]);
  let kept = [...updates];
  const skipped: SkippedDependency[] = [];
  const ceilings = new Map<string, PeerCeiling>();
  for (;;) {
    // A name can move to more than one version: workspaces on different
    // majors (astro's root vitest 4.1.0 -> 4.1.12 beside an example's 5 beta
    // -> 5.1.2). Each is checked, and left out, on its own.
    const moving = new Map<string, Update[]>();
    for (const update of kept)
      moving.set(update.name, [...(moving.get(update.name) ?? []), update]);
    /** The versions a package may have after the plan, each with the update that moves it there. */
    const after = (name: string): Array<{ version: string; update?: Update }> => {
      const updates = moving.get(name);
      if (updates) return updates.map((update) => ({ version: update.to, update }));
      const version = installed.get(name);
      return version ? [{ version }] : [];
    };
    const drop = new Map<Update, string>();
    const pairs: Array<[string, string]> = [];
    for (const declarer of new Set([...installed.keys(), ...moving.keys(), ...locked.keys()])) {
      const packument = packuments.get(declarer);
      const fromLock = moving.has(declarer) ? undefined : locked.get(declarer);
      const sides = after(declarer);
      if (sides.length === 0 && fromLock) sides.push({ version: fromLock.version });
      for (const { version: declarerAfter, update: declarerUpdate } of sides) {
        const declared = packument
          ? peersOf(packument, declarerAfter)
          : fromLock
            ? Object.entries(fromLock.peers)
            : [];
        for (const [peer, range] of declared) {
          if (!validRange(range)) continue;
          for (const { version: peerAfter, update: peerUpdate } of after(peer)) {
            if (!declarerUpdate && !peerUpdate) continue;
            if (accepts(peerAfter, range)) {
              if (
                packument &&
                declarerUpdate &&
                peerUpdate &&
                needsBoth(packument, peer, installed.get(declarer), installed.get(peer), {
                  declarer: declarerUpdate.to,
                  peer: peerUpdate.to,
                }) &&
                meet(declarerUpdate, peerUpdate)
              )
                pairs.push([declarer, peer]);
              continue;
            }
            // Broken already before the plan (babel 8 installed beside a plugin asking for ^7):
            // a bump inside that state breaks nothing new, as with engines.
            if (brokenBefore(declarer, peer, packument, fromLock, installed)) continue;
            // The plan breaks this range: leave out the bump that moved into the conflict.
            // When both move and the peer's installed version is outside the new range
            // too, the declarer's bump is that one (TanStack query: @testing-library/angular
            // 19 asks for Angular 21, and every Angular 20 patch was left out for it).
            const peerBefore = installed.get(peer);
            const declarerMovedIn =
              declarerUpdate !== undefined &&
              (peerUpdate === undefined ||
                (peerBefore !== undefined && !accepts(peerBefore, range)));
            if (!declarerMovedIn) {
              if (peerUpdate && !drop.has(peerUpdate))
                drop.set(
                  peerUpdate,
                  `${peerUpdate.to} is outside the peer range "${range}" that ${declarer} ${declarerAfter} declares (${packageManager(manager).peerOutcome})`,
                );
              continue;
            }
            // An older release on either side that the other takes: the plan weighs it next.
            const peerFit =
              peerUpdate &&
              olderFit(packuments.get(peer), peerBefore, peerUpdate, (v) => accepts(v, range));
            const declarerFit =
              !peerFit && declarerUpdate && packument
                ? olderFit(packument, installed.get(declarer), declarerUpdate, (v) =>
                    peersOf(packument, v).some(([n, r]) => n === peer && accepts(peerAfter, r)),
                  )
                : undefined;
            if (peerFit && peerUpdate && !ceilings.has(peer)) {
              const asks = `${declarer} ${declarerAfter} asks for ${peer} "${range}"`;
              ceilings.set(peer, { version: peerFit, passed: peerUpdate.to, because: asks, asks });
            }
            if (declarerFit && declarerUpdate && !ceilings.has(declarer)) {
              const asks = `it asks for ${peer} "${range}"`;
              ceilings.set(declarer, {
                version: declarerFit,
                passed: declarerUpdate.to,
                because: `${asks}, and ${peerUpdate ? `the plan moves ${peer} to ${peerAfter}` : `${peer} ${peerAfter} is installed`}`,
                asks,
              });
            }
            if (declarerUpdate && !drop.has(declarerUpdate))
              drop.set(
                declarerUpdate,
                `${declarerAfter} needs peer ${peer} "${range}", and ${peer} ${peerUpdate ? `${peerBefore} is installed (${peerAfter} after this plan)` : `${peerAfter} is installed`}`,
              );
          }
        }
      }
    }
    for (const [update, reason] of workspaceConflicts(kept, packuments, context, manager))
      if (!drop.has(update)) drop.set(update, reason);
    if (drop.size === 0) return { updates: kept, links: components(pairs), skipped, ceilings };
    for (const [update, reason] of drop) {
      // Each manifest from its own version (a workspace on 2.0.0, the root on 1.0.0).
      const from = new Map(update.locations.map((l) => [l.manifest, l.from]));
      for (const [manifest, version] of from)
        skipped.push({ name: update.name, manifest, reason: `${version} -> ${reason}` });
    }
    kept = kept.filter((u) => !drop.has(u));
  }
}

/**
 * Peer ranges inside each workspace: an update against what the package.json
 * it moves in declares beside it. The check above sees one version per name
 * and the versions the plan moves to; a workspace that keeps another (babel's
 * test/runtime-integration/webpack-4, on webpack 4 while webpack-5 moves to
 * 5.113) is only seen here, where webpack-cli 7 would meet webpack 4.
 * Catalog entries are left to the check above: their users are not known here.
 */
function workspaceConflicts(
  kept: readonly Update[],
  packuments: ReadonlyMap<string, Packument>,
  context: PeerContext,
  manager: ManagerName,
): Map<Update, string> {
  const found = new Map<Update, string>();
  const installedIn = context.installedIn;
  if (!installedIn || installedIn.size === 0) return found;
  const key = (manifest: string, name: string) => `${manifest}\0${name}`;
  const movedIn = new Map<string, Update>();
  for (const update of kept)
    for (const location of update.locations)
      if (location.catalog === undefined) movedIn.set(key(location.manifest, update.name), update);
  for (const update of kept) {
    const packument = packuments.get(update.package ?? update.name);
    for (const location of update.locations) {
      const declared = installedIn.get(location.manifest);
      if (location.catalog !== undefined || !declared || found.has(update)) continue;
      const where = location.manifest;
      // The update as a declarer: its new peers against the workspace's.
      for (const [peer, range] of packument ? peersOf(packument, update.to) : []) {
        const peerBefore = declared.get(peer);
        const peerUpdate = movedIn.get(key(where, peer));
        const peerAfter = peerUpdate?.to ?? peerBefore;
        if (!peerAfter || !validRange(range) || accepts(peerAfter, range)) continue;
        const oldRange = packument?.versions[location.from]?.peerDependencies?.[peer];
        if (peerBefore && oldRange && validRange(oldRange) && !accepts(peerBefore, oldRange))
          continue; // broken before the plan
        if (!peerUpdate || (peerBefore && !accepts(peerBefore, range)))
          found.set(
            update,
            `${update.to} needs peer ${peer} "${range}", and ${where} has ${peer} ${peerBefore}${peerUpdate ? ` (${peerAfter} after this plan)` : ""}`,
          );
        else if (!found.has(peerUpdate))
          found.set(
            peerUpdate,
            `${peerAfter} is outside the peer range "${range}" that ${update.name} ${update.to} declares in ${where} (${packageManager(manager).peerOutcome})`,
          );
        break;
      }
      if (found.has(update)) continue;
      // The update as a peer: what the workspace's packages that stay ask of it.
      for (const [declarer, version] of declared) {
        if (declarer === update.name || movedIn.has(key(where, declarer))) continue;
        const range = packuments.get(declarer)?.versions[version]?.peerDependencies?.[update.name];
        if (!range || !validRange(range) || accepts(update.to, range)) continue;
        if (!accepts(location.from, range)) continue; // broken before the plan
        found.set(
          update,
          `${update.to} is outside the peer range "${range}" that ${declarer} ${version} declares in ${where} (${packageManager(manager).peerOutcome})`,
        );
        break;
      }
    }
  }
  return found;
}

/** Whether the installed declarer's own peer range already leaves out the installed peer. */
function brokenBefore(
  declarer: string,
  peer: string,
  packument: Packument | undefined,
  fromLock: LockedPeers | undefined,
  installed: ReadonlyMap<string, string>,
): boolean {
  const declarerBefore = installed.get(declarer) ?? fromLock?.version;
  const peerBefore = installed.get(peer);
  if (!declarerBefore || !peerBefore) return false;
  const range = packument
    ? packument.versions[declarerBefore]?.peerDependencies?.[peer]
    : fromLock?.peers[peer];
  return range !== undefined && validRange(range) !== null && !accepts(peerBefore, range);
}

/**
 * The newest release of a moving package between its installed version and
 * the plan's that `takes` accepts, if any (an alias's packument is another
 * name's: not weighed).
 */
function olderFit(
  packument: Packument | undefined,
  installed: string | undefined,
  update: Update,
  takes: (version: string) => boolean,
): string | undefined {
  if (!packument || update.package !== undefined) return undefined;
  const versions = stableVersions(packument);
  for (let i = versions.length - 1; i >= 0; i--) {
    const v = versions[i] as string;
    if (installed && !gt(v, installed)) return undefined;
    if (lt(v, update.to) && takes(v)) return v;
  }
  return undefined;
}

/** Whether `version` is inside a peer range, as the package managers check it (prereleases count). */
function accepts(version: string, range: string): boolean {
  return satisfies(version, range, { includePrerelease: true });
}

function peersOf(packument: Packument, version: string): Array<[string, string]> {
  return Object.entries(packument.versions[version]?.peerDependencies ?? {});
}

/** Whether either bump alone would break the peer range: then they ship together. */
function needsBoth(
  packument: Packument,
  peer: string,
  declarerBefore: string | undefined,
  peerBefore: string | undefined,
  targets: { declarer: string; peer: string },
): boolean {
  const fits = (declarerVersion: string | undefined, peerVersion: string | undefined) => {
    if (!declarerVersion || !peerVersion) return true;
    const range = packument.versions[declarerVersion]?.peerDependencies?.[peer];
    return !range || !validRange(range) || accepts(peerVersion, range);
  };
  // The peer's bump ties it to the declarer's only where it breaks a range the
  // installed versions kept (redux-toolkit: @testing-library/react-render-stream
  // 1.0.3 takes react only up to 19's release candidates, beside react 19.2
  // already; react's move to 19.3 broke nothing new).
  return (
    !fits(targets.declarer, peerBefore) ||
    (fits(declarerBefore, peerBefore) && !fits(declarerBefore, targets.peer))
  );
}

/**
 * Whether two bumps meet in one install: they move a package.json in
 * common, or one moves the root's (which every workspace sees) or a
 * catalog's. headlessui's @testing-library/react major in packages/react
 * (react 18 there) and a playground's react minor never do: tied, the minor
 * waited in a group with the major.
 */
function meet(a: Update, b: Update): boolean {
  const where = (u: Update) =>
    new Set(u.locations.map((l) => (l.catalog !== undefined ? "package.json" : l.manifest)));
  const first = where(a);
  const second = where(b);
  if (first.has("package.json") || second.has("package.json")) return true;
  return [...first].some((manifest) => second.has(manifest));
}

function components(pairs: ReadonlyArray<[string, string]>): string[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    const p = parent.get(x) ?? x;
    if (p === x) return x;
    const root = find(p);
    parent.set(x, root);
    return root;
  };
  for (const [a, b] of pairs) parent.set(find(a), find(b));
  const groups = new Map<string, string[]>();
  for (const name of new Set(pairs.flat())) {
    const root = find(name);
    groups.set(root, [...(groups.get(root) ?? []), name].sort());
  }
  return [...groups.values()];
}
