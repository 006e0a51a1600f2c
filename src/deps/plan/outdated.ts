import { posix } from "node:path";
import PQueue from "p-queue";
import { gt, lt, major, minor, satisfies, valid } from "semver";
import type { DepsConfig, UpdateType } from "../config.js";
import { packageManager } from "../managers/index.js";
import { noAgeGate } from "../managers/tool-version.js";
import type { Packument, RegistryClient } from "../registry/registry.js";
import { releaseLinks } from "../registry/release-notes.js";
import { type Update, type UpdateLocation, updateType } from "../update.js";
import {
  catalogFirstUse,
  catalogOf,
  type DependencyList,
  listDependencies,
  resolveCatalog,
  type SkippedDependency,
  type WantedDependency,
} from "./dependency-list.js";
import { newInstallScripts } from "./install-scripts.js";
import { nodeTargetsFor, type ProjectNodes } from "./node/project-node.js";
import { type HeldDependency, overrideOf } from "./overrides.js";
import { DEP_SECTIONS, type NpmProject } from "./project.js";
import { writeRange } from "./range-strategy.js";
import { aliasNamedLine, folderNamedMajor, specTarget, withAlias } from "./spec.js";
import {
  chooseTargets,
  type ManagerGates,
  newerCandidates,
  type PassedOver,
  passedOverReason,
  resolvedBy,
  versionPolicy,
} from "./versions.js";

/**
 * Finding updates: every registry dependency of every manifest, its
 * installed version (from the lockfile), the registry's packument, and the
 * versions `chooseTargets` accepts. Entries for the same package and target
 * in several workspaces become one update with several locations, each
 * with the version its own workspace has now.
 */

export interface FindUpdatesResult {
  updates: Update[];
  skipped: SkippedDependency[];
  /** Packages already at the newest acceptable version. */
  upToDate: number;
  /** Dependencies of workspaces on each other: the package manager links them, there is nothing to bump. */
  internal: number;
  /** What is installed now, per package (the root's view): the peer check starts from it. */
  installed: Map<string, string>;
  /** What each package.json declares (peers and catalog entries aside), at its installed version. */
  installedIn: Map<string, Map<string, string>>;
  /** By registry package name. */
  packuments: Map<string, Packument>;
  /** Every registry dependency considered, with its installed version. */
  entries: WantedDependency[];
  /**
   * The dependencies an override holds, left out of the bumps: the plan
   * says so, with their advisories when they have any (a fix means changing
   * the override).
   */
  held: HeldDependency[];
}

export interface FindUpdatesOptions {
  project: NpmProject;
  registry: RegistryClient;
  config: DepsConfig;
  now: number;
  /** The Nodes dependencies run on (development, engines); none: no engines check. */
  nodes?: ProjectNodes | undefined;
  /** What the package manager refuses (release age, trust policy). */
  gates: ManagerGates;
  /** Only these packages (a security-only run asks the registry about nothing else). */
  onlyNames?: ReadonlySet<string> | undefined;
  /**
   * The newest version to weigh per package, below its newest release: what
   * a peer's exact range takes (peers.ts PeerCeiling).
   */
  ceilings?: ReadonlyMap<string, string> | undefined;
  signal?: AbortSignal;
  concurrency?: number;
}

export async function findUpdates(options: FindUpdatesOptions): Promise<FindUpdatesResult> {
  const { project, config } = options;
  const listed: DependencyList = listDependencies(project, config);
  const skipped = listed.skipped;
  const internal = listed.internal;
  // An overridden dependency is bumped where the override takes its version
  // from (pnpm's `catalog:`, the catalog's entry), else left out with the override named.
  const firstUse = catalogFirstUse();
  for (const w of listed.wanted) firstUse(w.entry);
  const held: HeldDependency[] = [];
  const wanted = listed.wanted.flatMap((w): WantedDependency[] => {
    if (options.onlyNames && !options.onlyNames.has(w.package)) return [];
    const override = overrideOf(project.overrides, w.entry, w.range);
    if (!override) return [w];
    const entry = resolveCatalog(project, { ...w.entry, spec: override.value });
    const target = entry && specTarget(entry.name, entry.spec);
    if (entry && target?.kind === "registry")
      return firstUse(entry) ? [{ ...w, entry, package: target.package, range: target.range }] : [];
    held.push({ ...w, override });
    return [];
  });

  // Peer ranges are npm's view of the whole tree: packages left out of the
  // bumps (ignored, or of another dep_types section) still declare peers.
  const everything = options.onlyNames
    ? wanted
    : listDependencies(project, { depTypes: [...DEP_SECTIONS], ignore: [] }).wanted;
  const queue = new PQueue({ concurrency: options.concurrency ?? 16 });
  // The installed versions each package is weighed from, across every manifest: one fetch per name.
  const currents = new Map<string, Set<string>>();
  for (const w of wanted)
    currents.set(w.package, (currents.get(w.package) ?? new Set()).add(w.current));
  const peerOnly = [...new Set(everything.map((w) => w.package))].filter(
    (name) => !currents.has(name),
  );
  const packuments = new Map<string, Packument | Error>();
  const { registry, signal } = options;
  const fetchOne = async (name: string): Promise<Packument> => {
    if (!registry.abbreviatedPackument) return registry.packument(name, signal);
    const first = await registry.abbreviatedPackument(name, signal);
    // Publish times (cooldown, release age, the PR's "released … ago"), the
    // repository and the scripts matter only to a package with a newer version
    // to weigh: the others stay on the abbreviated document, as peer declarers do.
    const from = currents.get(name);
    if (!first.abbreviated || !from || ![...from].some((c) => hasNewer(first, c))) return first;
    return registry.packument(name, signal);
  };
  await queue.addAll(
    [...currents.keys(), ...peerOnly].map((name) => async () => {
      packuments.set(name, await fetchOne(name).catch((error: Error) => error));
    }),
  );

  const installed = new Map<string, string>();
  const installedIn = new Map<string, Map<string, string>>();
  for (const { entry, current } of everything) {
    if (entry.section === "peerDependencies") continue;
    if (!installed.has(entry.name)) installed.set(entry.name, current);
    if (entry.catalog !== undefined) continue;
    const declared = installedIn.get(entry.manifest) ?? new Map<string, string>();
    installedIn.set(entry.manifest, declared.set(entry.name, current));
  }
  const byKey = new Map<string, Update>();
  let upToDate = 0;
  // What the lockfile step will lock where a range is resolved again: a
  // rewritten range its locked version no longer satisfies (a raised floor)
  // with every tool, and one it still satisfies with yarn (npm, pnpm and bun
  // keep the locked version then, measured with each); a kept one with npm
  // and yarn (pnpm and bun are given the plan's version). Newer than the
  // plan's, for a reason the tool knows nothing of (deps.update_types, an
  // ignore rule), it would be locked instead and the job would leave the
  // update out: said here.
  const manager = packageManager(project.manager.name);
  // A tool without an age gate (yarn 1, pnpm before 10.16) sees every release.
  const ungated = noAgeGate(project.manager);
  const cutoff = ungated
    ? options.now
    : options.now - Math.max(config.cooldownDays * 86_400_000, options.gates.releaseAge?.ms ?? 0);
  const resolvesKept = ["npm", "yarn-classic", "yarn-berry"].includes(project.manager.name);
  const yarn = project.manager.name.startsWith("yarn");
  const lockedInstead = (
    range: string,
    written: string | null,
    planned: string,
    dependency: WantedDependency,
  ): string | undefined => {
    const kept = written !== null && !yarn && satisfies(dependency.current, written);
    const resolved =
      written === null ? (resolvesKept ? range : undefined) : kept ? undefined : written;
    const packument = packuments.get(dependency.package);
    if (resolved === undefined || !packument || packument instanceof Error) return undefined;
    const picked = resolvedBy(packument, resolved, cutoff);
    if (!picked || !gt(picked, planned)) return undefined;
    const node = options.nodes ? nodeTargetsFor(options.nodes, dependency.entry) : undefined;
    const policy = versionPolicy(config, options.now, node, options.gates);
    const why = passedOverReason(packument, picked, dependency.current, policy);
    if (!why) return undefined;
    const where = written === null ? `the range ${range}` : `the new range ${written}`;
    // A ~ range stops below a newer minor, not below a newer patch (pinia's vue ~3.5.46 and 3.5.47).
    const stops =
      major(picked) === major(planned) && minor(picked) === minor(planned)
        ? "an exact version"
        : "~ or an exact version";
    return `${manager.label} would lock ${picked} instead, the newest release ${where} allows, which the plan passes over (${why}${ungated ? `; ${ungated}` : ""}); a range that stops below it (${stops}) would take ${planned}`;
  };
  const sections = new Map<string, Set<string>>();
  for (const { entry } of wanted) {
    const key = `${entry.manifest}\0${entry.name}`;
    sections.set(key, (sections.get(key) ?? new Set()).add(entry.section));
  }
  for (const dependency of wanted) {
    const { entry, current } = dependency;
    const several = (sections.get(`${entry.manifest}\0${entry.name}`)?.size ?? 0) > 1;
    const skip = (reason: string) =>
      skipped.push({
        name: entry.name,
        manifest: entry.manifest,
        reason,
        ...(several ? { section: entry.section } : {}),
      });
    const packument = packuments.get(dependency.package);
    if (!packument || packument instanceof Error) {
      skip(packument instanceof Error ? packument.message : "not fetched");
      continue;
    }
    const node = options.nodes ? nodeTargetsFor(options.nodes, entry) : undefined;
    // An alias named for the line it installs (react-18: npm:react@^18;
    // @babel/core-7.12: npm:@babel/core@7.12.9) stays on it.
    // So does a package.json in a folder named for it (webpack-3 on webpack 3).
    const alias =
      dependency.package !== entry.name ? aliasNamedLine(entry.name, current) : undefined;
    const folderMajor = folderNamedMajor(entry.manifest, dependency.package);
    const named = alias ?? (folderMajor === undefined ? undefined : { major: folderMajor });
    const line =
      named !== undefined &&
      valid(current) !== null &&
      named.major === major(current) &&
      (named.minor === undefined || named.minor === minor(current))
        ? named
        : undefined;
    const holder =
      alias !== undefined
        ? { what: `the alias ${entry.name}`, more: "alias" }
        : { what: posix.dirname(entry.manifest), more: "folder" };
    const ceiling = options.ceilings?.get(dependency.package);
    const choice = chooseTargets(
      ceiling && gt(ceiling, current) ? latestAt(packument, ceiling) : packument,
      current,
      versionPolicy(config, options.now, node, options.gates),
      line?.minor !== undefined,
    );
    const lineName =
      line?.minor === undefined ? `major ${line?.major}` : `${line.major}.${line.minor}`;
    const pastLine = (kind: string, version: string) =>
      skip(
        line?.older
          ? `newer ${kind} not proposed: ${version}: ${holder.what} is named for an older release; it stays on ${lineName}`
          : `newer ${kind} not proposed: ${version}: ${holder.what} is named for ${lineName}; add another ${holder.more} for the new one`,
      );
    if (choice.newerMinor !== undefined) pastLine("minor", choice.newerMinor);
    const staysOnMajor = choice.major !== undefined && line !== undefined;
    if (staysOnMajor && choice.major) pastLine("major", choice.major.version);
    const majorTarget = staysOnMajor ? undefined : choice.major;
    const majorNotes = choice.passedOver.filter((p) => p.type === "major");
    const targets = [choice.nonMajor, majorTarget].filter((c) => c !== undefined);
    // Every newer major that is not proposed is said, with why: no silent drops.
    if (!choice.major && majorNotes.length > 0 && targets.length > 0)
      skip(`newer major not proposed: ${majorNotes.map(describePassed).join("; ")}`);
    if (targets.length === 0) {
      if (staysOnMajor || choice.newerMinor !== undefined) continue;
      if (choice.passedOver.length > 0)
        skip(`${current} kept: ${choice.passedOver.map(describePassed).join("; ")}`);
      else upToDate += 1;
      continue;
    }
    for (const target of targets) {
      const write = writeRange(dependency.range, target.version, {
        strategy: config.rangeStrategy,
        section: entry.section,
        hasLockfile: project.lockfilePath !== undefined,
      });
      if (write.kind !== "write") {
        skip(`${current} -> ${target.version} not proposed: ${write.reason}`);
        continue;
      }
      const instead = lockedInstead(dependency.range, write.spec, target.version, dependency);
      if (instead) {
        skip(`${current} -> ${target.version} not proposed: ${instead}`);
        continue;
      }
      const location: UpdateLocation = {
        manifest: entry.manifest,
        section: entry.section,
        spec: entry.spec,
        newSpec: write.spec === null ? null : withAlias(entry.spec, write.spec),
        from: current,
        ...catalogOf(entry),
      };
      // A major for one workspace and a minor for another stay two updates: the minor never waits for the major.
      const key = `${entry.name}@${target.version}@${target.type === "major" ? "major" : "minor"}`;
      const known = byKey.get(key);
      if (known) {
        addLocation(known, location);
        continue;
      }
      byKey.set(key, {
        name: entry.name,
        ...(dependency.package !== entry.name ? { package: dependency.package } : {}),
        from: current,
        to: target.version,
        type: target.type,
        ...(target.publishedAt ? { publishedAt: target.publishedAt } : {}),
        locations: [location],
        links: releaseLinks(packument, target.version),
        newInstallScripts: newInstallScripts(packument, current, target.version),
        passedOver: choice.passedOver
          .filter((p) => (p.type === "major") === (target.type === "major"))
          .map(describePassed),
      });
    }
  }
  const updates = [...byKey.values()].sort((a, b) => a.name.localeCompare(b.name));
  const fetched = new Map<string, Packument>();
  for (const [name, packument] of packuments)
    if (!(packument instanceof Error)) fetched.set(name, packument);
  return {
    updates,
    skipped,
    upToDate,
    internal,
    installed,
    installedIn,
    packuments: fetched,
    entries: wanted,
    held,
  };
}

function lowerVersion(a: string, b: string): boolean {
  return valid(a) !== null && valid(b) !== null && lt(a, b);
}

const TYPE_ORDER: readonly UpdateType[] = ["patch", "minor", "major"];

/** The packument as if `version` were its newest release: chooseTargets weighs nothing past `latest`. */
function latestAt(packument: Packument, version: string): Packument {
  return { ...packument, "dist-tags": { ...packument["dist-tags"], latest: version } };
}

/** One more workspace moves to the same version: its own from, the lowest from and biggest kind kept. */
export function addLocation(update: Update, location: UpdateLocation): void {
  update.locations.push(location);
  if (lowerVersion(location.from, update.from)) update.from = location.from;
  const type = updateType(location.from, update.to);
  if (TYPE_ORDER.indexOf(type) > TYPE_ORDER.indexOf(update.type)) update.type = type;
}

/** More updates into `updates`: one already moving the same dependency to the same version takes their locations. */
export function mergeUpdates(updates: Update[], more: readonly Update[]): void {
  for (const update of more) {
    const same = updates.find((u) => u.name === update.name && u.to === update.to);
    if (same) for (const location of update.locations) addLocation(same, location);
    else updates.push(update);
  }
}

/** The versions an update moves from, lowest first: "5.8.2" or "5.5.4, 5.8.2, 5.9.2". */
export function fromVersions(update: Pick<Update, "from" | "locations">): string {
  const all = [...new Set(update.locations.map((l) => l.from))].sort((a, b) =>
    lowerVersion(a, b) ? -1 : lowerVersion(b, a) ? 1 : 0,
  );
  return all.length > 1 ? all.join(", ") : update.from;
}

function describePassed(passed: PassedOver): string {
  return `${passed.version}: ${passed.reason}`;
}

/** Whether `current` has anything newer to weigh; a version semver cannot read is left to chooseTargets. */
function hasNewer(packument: Packument, current: string): boolean {
  try {
    return newerCandidates(packument, current).length > 0;
  } catch {
    return true;
  }
}
