import PQueue from "p-queue";
import type { DepsConfig, UpdateType } from "./config.js";
import { type DepEntry, type DepSection, lockedVersion, type NpmProject } from "./project.js";
import type { Packument, RegistryClient } from "./registry.js";
import { type ReleaseLinks, releaseLinks } from "./release-notes.js";
import { nonRegistryReason, rewriteSpec, specFloor } from "./spec.js";
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
}

export interface FindUpdatesOptions {
  project: NpmProject;
  registry: RegistryClient;
  config: DepsConfig;
  now: number;
  signal?: AbortSignal;
  concurrency?: number;
}

const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"];

export async function findUpdates(options: FindUpdatesOptions): Promise<FindUpdatesResult> {
  const { project, config } = options;
  const skipped: SkippedDependency[] = [];
  const workspaceNames = new Set(project.manifests.map((m) => m.name).filter(Boolean));
  const wanted: Array<{ entry: DepEntry; current: string }> = [];
  let internal = 0;

  for (const manifest of project.manifests) {
    for (const entry of manifest.deps) {
      const skip = (reason: string) =>
        skipped.push({ name: entry.name, manifest: entry.manifest, reason });
      const nonRegistry = nonRegistryReason(entry.spec);
      if (nonRegistry) skip(nonRegistry);
      else if (workspaceNames.has(entry.name)) internal += 1;
      else if (ignoresPackage(rulesFor(entry.name, config.ignore))) skip("ignored by deps.ignore");
      else {
        const current =
          lockedVersion(project.lockfile, manifest.dir, entry.name) ?? specFloor(entry.spec);
        if (current) wanted.push({ entry, current });
        else skip(`cannot tell the installed version of "${entry.spec}"`);
      }
    }
  }

  const queue = new PQueue({ concurrency: options.concurrency ?? 8 });
  const names = [...new Set(wanted.map((w) => w.entry.name))];
  const packuments = new Map<string, Packument | Error>();
  await queue.addAll(
    names.map((name) => async () => {
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
    minNode: project.nodeEngine ? specFloor(project.nodeEngine) : undefined,
  };
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
    const targets = [choice.nonMajor, choice.major].filter((c) => c !== undefined);
    if (targets.length === 0) {
      if (choice.passedOver.length > 0)
        skip(`${current} kept: ${choice.passedOver.map(describePassed).join("; ")}`);
      else upToDate += 1;
      continue;
    }
    for (const target of targets) {
      const rewrite = rewriteSpec(entry.spec, target.version);
      if (!rewrite.ok) {
        skip(`${current} -> ${target.version} not proposed: ${rewrite.reason}`);
        continue;
      }
      const location = {
        manifest: entry.manifest,
        section: entry.section,
        spec: entry.spec,
        newSpec: rewrite.spec,
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
  return { updates, skipped, upToDate, internal };
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
