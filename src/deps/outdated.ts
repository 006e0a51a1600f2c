import PQueue from "p-queue";
import type { DepsConfig, UpdateType } from "./config.js";
import {
  DEP_SECTIONS,
  type DepEntry,
  type DepSection,
  lockedVersion,
  type NpmProject,
} from "./project.js";
import type { ProjectNode } from "./project-node.js";
import { writeRange } from "./range-strategy.js";
import type { Advisory, Packument, RegistryClient } from "./registry.js";
import type { ReleaseAge } from "./release-age.js";
import { type ReleaseLinks, releaseLinks } from "./release-notes.js";
import { nonRegistryReason, specFloor } from "./spec.js";
import { chooseTargets, ignoresPackage, type PassedOver, rulesFor } from "./versions.js";

/**
 * Finding updates: every registry dependency of every manifest, its
 * installed version (from the lockfile), the registry's packument, and the
 * versions `chooseTargets` accepts. Entries for the same package and target
 * in several workspaces become one update with several locations.
 */

export interface UpdateLocation {
  manifest: string;
  section: DepSection;
  spec: string;
  /** The spec to write, or null when the range already allows the new version (lockfile only). */
  newSpec: string | null;
}

export interface Update {
  name: string;
  from: string;
  to: string;
  type: UpdateType;
  publishedAt?: string;
  locations: UpdateLocation[];
  links: ReleaseLinks;
  /** Install scripts the new version has and the old one did not (preinstall, install, postinstall). */
  newInstallScripts: string[];
  /** Newer versions of the same kind that were passed over, and why: "2.1.0: released 1 day ago, …". */
  passedOver: string[];
  /** Set on security updates: the advisories the current version has and this one fixes. */
  advisories?: Advisory[];
}

export interface SkippedDependency {
  name: string;
  manifest: string;
  reason: string;
}

export interface FindUpdatesResult {
  updates: Update[];
  skipped: SkippedDependency[];
  /** Packages already at the newest acceptable version. */
  upToDate: number;
  /** Dependencies of workspaces on each other: npm links them, there is nothing to bump. */
  internal: number;
  /** What is installed now, per package (the root's view): the peer check starts from it. */
  installed: Map<string, string>;
  packuments: Map<string, Packument>;
  /** Every registry dependency considered, with its installed version. */
  entries: Array<{ entry: DepEntry; current: string }>;
}

export interface FindUpdatesOptions {
  project: NpmProject;
  registry: RegistryClient;
  config: DepsConfig;
  now: number;
  node?: ProjectNode | undefined;
  releaseAge?: ReleaseAge | undefined;
  /** Only these packages (a security-only run asks the registry about nothing else). */
  onlyNames?: ReadonlySet<string> | undefined;
  signal?: AbortSignal;
  concurrency?: number;
}

const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"];

export interface DependencyList {
  wanted: Array<{ entry: DepEntry; current: string }>;
  skipped: SkippedDependency[];
  internal: number;
}

/** Every registry dependency the config covers, with its installed version; no registry asked. */
export function listDependencies(
  project: NpmProject,
  config: Pick<DepsConfig, "depTypes" | "ignore">,
): DependencyList {
  const skipped: SkippedDependency[] = [];
  const workspaceNames = new Set(project.manifests.map((m) => m.name).filter(Boolean));
  const wanted: Array<{ entry: DepEntry; current: string }> = [];
  let internal = 0;

  for (const manifest of project.manifests) {
    for (const entry of manifest.deps) {
      const skip = (reason: string) =>
        skipped.push({ name: entry.name, manifest: entry.manifest, reason });
      const nonRegistry = nonRegistryReason(entry.spec);
      if (!config.depTypes.includes(entry.section)) continue;
      if (nonRegistry) skip(nonRegistry);
      else if (workspaceNames.has(entry.name)) internal += 1;
      else if (ignoresPackage(rulesFor(entry.name, config.ignore))) skip("ignored by deps.ignore");
      else {
        const current =
          lockedVersion(project.lockfile, manifest.dir, entry.name) ??
          project.lockedVersionOf?.(manifest.dir, entry.name, entry.spec) ??
          specFloor(entry.spec);
        if (current) wanted.push({ entry, current });
        else skip(`cannot tell the installed version of "${entry.spec}"`);
      }
    }
  }
  return { wanted, skipped, internal };
}

export async function findUpdates(options: FindUpdatesOptions): Promise<FindUpdatesResult> {
  const { project, config } = options;
  const listed = listDependencies(project, config);
  const skipped = listed.skipped;
  const internal = listed.internal;
  const wanted = options.onlyNames
    ? listed.wanted.filter((w) => options.onlyNames?.has(w.entry.name))
    : listed.wanted;

  // Peer ranges are npm's view of the whole tree: packages left out of the
  // bumps (ignored, or of another dep_types section) still declare peers.
  const everything = options.onlyNames
    ? wanted
    : listDependencies(project, { depTypes: [...DEP_SECTIONS], ignore: [] }).wanted;
  const queue = new PQueue({ concurrency: options.concurrency ?? 8 });
  const names = [...new Set(wanted.map((w) => w.entry.name))];
  const peerOnly = [...new Set(everything.map((w) => w.entry.name))].filter(
    (name) => !names.includes(name),
  );
  const packuments = new Map<string, Packument | Error>();
  await queue.addAll(
    [...names, ...peerOnly].map((name) => async () => {
      packuments.set(
        name,
        await options.registry.packument(name, options.signal).catch((error: Error) => error),
      );
    }),
  );

  const policy = {
    updateTypes: config.updateTypes,
    cooldownMs: config.cooldownDays * 86_400_000,
    ignore: config.ignore,
    now: options.now,
    node: options.node,
    releaseAge: options.releaseAge,
  };
  const installed = new Map<string, string>();
  for (const { entry, current } of everything) {
    if (entry.section !== "peerDependencies" && !installed.has(entry.name))
      installed.set(entry.name, current);
  }
  const byKey = new Map<string, Update>();
  let upToDate = 0;
  for (const { entry, current } of wanted) {
    const skip = (reason: string) =>
      skipped.push({ name: entry.name, manifest: entry.manifest, reason });
    const packument = packuments.get(entry.name);
    if (!packument || packument instanceof Error) {
      skip(packument instanceof Error ? packument.message : "not fetched");
      continue;
    }
    const choice = chooseTargets(packument, current, policy);
    const majorNotes = choice.passedOver.filter((p) => p.type === "major");
    const targets = [choice.nonMajor, choice.major].filter((c) => c !== undefined);
    // Every newer major that is not proposed is said, with why: no silent drops.
    if (!choice.major && majorNotes.length > 0 && targets.length > 0)
      skip(`newer major not proposed: ${majorNotes.map(describePassed).join("; ")}`);
    if (targets.length === 0) {
      if (choice.passedOver.length > 0)
        skip(`${current} kept: ${choice.passedOver.map(describePassed).join("; ")}`);
      else upToDate += 1;
      continue;
    }
    for (const target of targets) {
      const write = writeRange(entry.spec, target.version, {
        strategy: config.rangeStrategy,
        section: entry.section,
        hasLockfile: project.lockfilePath !== undefined,
      });
      if (write.kind !== "write") {
        skip(`${current} -> ${target.version} not proposed: ${write.reason}`);
        continue;
      }
      const location = {
        manifest: entry.manifest,
        section: entry.section,
        spec: entry.spec,
        newSpec: write.spec,
      };
      const key = `${entry.name}@${target.version}`;
      const known = byKey.get(key);
      if (known) {
        known.locations.push(location);
        continue;
      }
      byKey.set(key, {
        name: entry.name,
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
    packuments: fetched,
    entries: wanted,
  };
}

function describePassed(passed: PassedOver): string {
  return `${passed.version}: ${passed.reason}`;
}

function newInstallScripts(packument: Packument, from: string, to: string): string[] {
  const scripts = (version: string) => {
    const manifest = packument.versions[version];
    const present = INSTALL_SCRIPTS.filter((name) => typeof manifest?.scripts?.[name] === "string");
    // The registry marks packages with a binding.gyp as having an install script too.
    if (present.length === 0 && manifest?.hasInstallScript) present.push("install");
    return present;
  };
  const before = new Set(scripts(from));
  return scripts(to).filter((name) => !before.has(name));
}
