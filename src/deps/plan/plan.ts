import { prerelease, valid } from "semver";
import { errorMessage } from "../../error-message.js";
import type { DepsConfig } from "../config.js";
import type { LockedGraph, ManagerName } from "../managers/types.js";
import { type NpmConfig, readNpmConfig } from "../registry/npmrc.js";
import {
  type Advisory,
  createRegistryClient,
  type FetchJson,
  type Packument,
  type RegistryClient,
} from "../registry/registry.js";
import type { Update } from "../update.js";
import { listDependencies, type SkippedDependency } from "./dependency-list.js";
import { groupUpdates, lineOf, slugify, type UpdateGroup } from "./groups.js";
import { noteUnapprovedScripts, readScriptPolicy } from "./install-scripts.js";
import { type ProjectNodes, readProjectNodes } from "./node/project-node.js";
import { type FindUpdatesOptions, findUpdates, mergeUpdates } from "./outdated.js";
import { heldReason } from "./overrides.js";
import { findManagerUpdates } from "./package-manager-update.js";
import { checkPeers } from "./peers.js";
import { type NpmProject, readNpmProject } from "./project.js";
import { ONE_AT_A_TIME, regularUpdates } from "./regular-updates.js";
import { type ReleaseAge, readReleaseAge } from "./release-age.js";
import { advisoryRequest, findSecurityUpdates } from "./security.js";
import { findTransitiveSecurityUpdates } from "./transitive-security.js";
import { versionPolicy } from "./versions.js";

/**
 * A check the plan could not run: its absence must not read as "nothing
 * found" (no advisories is not the same as advisories not asked).
 */
export interface PlanWarning {
  check: "advisories";
  error: string;
}

/** What a run would do: the groups (one pull request each) and what was left out, and why. */
export interface DepsPlan {
  registry: string;
  manifests: string[];
  /** In the order their pull requests open: security fixes, groups, then majors most likely merged first. */
  groups: UpdateGroup[];
  skipped: SkippedDependency[];
  /** Checks that could not run; the plan is incomplete without them. */
  warnings: PlanWarning[];
  upToDate: number;
  /** Dependencies on the workspace's own packages (linked by the package manager, never bumped). */
  internal: number;
  /** The package manager that writes the lockfile: npm, pnpm, yarn-classic, yarn-berry, bun. */
  manager: ManagerName;
  /** package.json's `packageManager` field, when it has one ("pnpm@10.12.1"). */
  packageManager?: string;
  /** Other tools' lockfiles beside the manager's own, left as they are (DetectedManager.others). */
  otherLockfiles?: string[];
  /** deps.max_open_prs: groups past it wait for earlier pull requests to close. */
  maxOpenPrs: number;
  /** The Nodes the engines check used: the development Node, and engines.node per manifest. */
  node: ProjectNodes;
  /** The package manager's minimum release age, when the project sets one. */
  releaseAge?: ReleaseAge;
}

export interface PlanDepsOptions {
  dir: string;
  config: DepsConfig;
  env: Record<string, string | undefined>;
  clock: { now(): number };
  /** Default: a client for the registries the project's .npmrc names. */
  registry?: RegistryClient;
  /** The default client's advisory requests (packuments go through npm-registry-fetch). */
  fetchJson?: FetchJson;
  signal?: AbortSignal;
  /** The Node the job runs on (`npm outdated` compares with it when the project names none). */
  runningNode?: string;
  /** Only security updates (the scheduler's check between scheduled runs). */
  securityOnly?: boolean;
}

export interface PlannedProject {
  plan: DepsPlan;
  project: NpmProject;
  npm: NpmConfig;
  registry: RegistryClient;
}

export async function planDepsUpdates(options: PlanDepsOptions): Promise<PlannedProject> {
  const project = await readNpmProject(options.dir);
  const npm = await readNpmConfig({ dir: options.dir, env: options.env });
  const registry =
    options.registry ??
    createRegistryClient({ npm, ...(options.fetchJson ? { fetchJson: options.fetchJson } : {}) });
  const node = await readProjectNodes({
    dir: options.dir,
    manifests: project.manifests.map((m) => ({ path: m.path, json: m.json })),
    npmOptions: npm.options,
    runningNode: options.runningNode ?? process.version,
  });
  const releaseAge = await readReleaseAge(options.dir, npm, project.manager);
  const gates = { releaseAge, trust: project.trustPolicy };
  const now = options.clock.now();
  const warnings: PlanWarning[] = [];
  // A security-only run asks about advisories first, and fetches packuments only for what has one.
  let known: Record<string, Advisory[]> | undefined;
  let securityError: unknown;
  if (options.securityOnly && options.config.securityUpdates) {
    const listed = listDependencies(project, options.config);
    known = await registry
      .advisories(advisoryRequest(listed.wanted, options.config), options.signal)
      .catch((error: unknown) => {
        securityError = error;
        return {};
      });
  }
  // package.json's packageManager: the tool runs where the project is developed. Asked
  // beside the dependencies, so its packument is not one more round trip at the end.
  const managed = options.securityOnly
    ? undefined
    : findManagerUpdates({
        dir: options.dir,
        pinned: project.manager.pinned,
        devEngines: project.manifests.find((m) => m.path === "package.json")?.json.devEngines,
        registry,
        policy: versionPolicy(options.config, now, [node.development], gates),
        signal: options.signal,
      });
  // Awaited below; handled here so a failure of findUpdates first leaves no unhandled rejection.
  managed?.catch(() => undefined);
  const find = (only: Pick<FindUpdatesOptions, "onlyNames" | "ceilings">) =>
    findUpdates({
      project,
      registry,
      config: options.config,
      now,
      nodes: node,
      gates,
      ...only,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  const found = await find(known ? { onlyNames: new Set(Object.keys(known)) } : {});
  const skipped = [...found.skipped];
  if (managed) {
    const manager = await managed;
    skipped.push(...manager.skipped);
    // The same tool as a devDependency at the same version: one update, both places.
    mergeUpdates(found.updates, manager.updates);
  }
  // npm's lockfile, read once for what the project does not name: the transitive security fixes and the peers.
  const graph = project.lockedGraph?.(
    new Set(project.manifests.flatMap((m) => m.deps.map((d) => d.name))),
  );
  let security: Update[] = [];
  if (securityError) warnings.push(advisoryFailure(securityError));
  else if (options.config.securityUpdates) {
    try {
      const findings = await findSecurityUpdates({
        entries: found.entries,
        packuments: found.packuments,
        registry,
        config: options.config,
        hasLockfile: project.lockfilePath !== undefined,
        now,
        nodes: node,
        gates,
        signal: options.signal,
        known,
        held: found.held,
      });
      security = findings.updates;
      skipped.push(...findings.skipped);
      // What the project does not name itself, from npm's lockfile, as npm audit sees it.
      if (graph && project.lockfilePath) {
        const transitive = await findTransitiveSecurityUpdates({
          graph,
          lockfilePath: project.lockfilePath,
          registry,
          config: options.config,
          now,
          releaseAge,
          signal: options.signal,
        });
        security.push(...transitive.updates);
        skipped.push(...transitive.skipped);
      }
    } catch (error) {
      // No advisories is no reason to hold back the other updates; say so, loudly.
      warnings.push(advisoryFailure(error));
    }
  }
  // What an override holds, said once: with its advisories when the check found some.
  const said = new Set(skipped.map((s) => `${s.manifest}\0${s.name}`));
  for (const h of found.held)
    if (!said.has(`${h.entry.manifest}\0${h.entry.name}`))
      skipped.push({
        name: h.entry.name,
        manifest: h.entry.manifest,
        reason: heldReason(h.override),
      });
  const securityNames = new Set(security.map((u) => u.name));
  if (!options.securityOnly) skipped.push(...waitingForSecurity(found.updates, security));
  const peerCheck = (updates: Update[]) =>
    checkPeers([...security, ...updates], found.installed, found.packuments, {
      locked: project.lockedPeers,
      manager: project.manager.name,
      transitive: singleVersions(graph),
      installedIn: found.installedIn,
    });
  const candidates = options.securityOnly
    ? []
    : found.updates.filter((u) => !securityNames.has(u.name));
  const { regular, peers } = await regularUpdates({
    candidates,
    check: peerCheck,
    config: options.config,
    fixed: securityNames,
    reweigh: async (ceilings) =>
      (await find({ onlyNames: new Set(ceilings.keys()), ceilings })).updates,
  });
  skipped.push(...peers.skipped);
  const kept = new Set(peers.updates);
  // npm's allowScripts and pnpm's build settings; yarn and bun keep their own lists, not read.
  await noteUnapprovedScripts({
    updates: [...kept],
    policy: await readScriptPolicy(options.dir, "", project.manager.name),
    packument: (name) => registry.packument(name, options.signal),
  });
  const plan: DepsPlan = {
    registry: npm.registry,
    // The catalog file too (pnpm-workspace.yaml, .yarnrc.yml): a group edits and restores it as a manifest.
    manifests: [
      ...project.manifests.map((m) => m.path),
      ...(project.catalogFile && !project.manifests.some((m) => m.path === project.catalogFile)
        ? [project.catalogFile]
        : []),
    ],
    groups: [
      ...securityGroups(security.filter((u) => kept.has(u))),
      ...groupUpdates(
        regular.filter((u) => kept.has(u)),
        options.config,
        // A security fix ships alone: its partners wait for their own pull request.
        peers.links.filter((names) => !names.some((n) => securityNames.has(n))),
        (update) => lineReleased(found.packuments.get(update.package ?? update.name), update.to),
      ),
    ],
    skipped,
    warnings,
    upToDate: found.upToDate,
    internal: found.internal,
    maxOpenPrs: options.config.maxOpenPrs,
    manager: project.manager.name,
    ...(project.manager.pinned ? { packageManager: project.manager.pinned } : {}),
    ...(project.manager.others ? { otherLockfiles: project.manager.others } : {}),
    node,
    ...(releaseAge ? { releaseAge } : {}),
  };
  return { plan, project, npm, registry };
}

/** When the first release of `version`'s line came out (its packument's publish times). */
function lineReleased(packument: Packument | undefined, version: string): number | undefined {
  const line = lineOf(version);
  let first: number | undefined;
  for (const [published, at] of Object.entries(packument?.time ?? {})) {
    if (!valid(published) || prerelease(published) || lineOf(published) !== line) continue;
    const time = typeof at === "string" ? Date.parse(at) : Number.NaN;
    if (!Number.isNaN(time) && (first === undefined || time < first)) first = time;
  }
  return first;
}

/** The packages npm's lockfile installs that no manifest names, each at its one version (several: left out). */
function singleVersions(graph: LockedGraph | undefined): Map<string, string> {
  const found = new Map<string, string>();
  for (const [name, versions] of graph?.versions ?? [])
    if (versions.size === 1) found.set(name, [...versions][0] as string);
  return found;
}

/**
 * A package with a security fix gets that pull request alone; its other
 * updates (a newer minor, a major) wait for it, and the plan says so.
 */
function waitingForSecurity(
  updates: readonly Update[],
  security: readonly Update[],
): SkippedDependency[] {
  const fixes = new Map(security.map((u) => [u.name, u]));
  return updates.flatMap((update) => {
    const fix = fixes.get(update.name);
    if (!fix || fix.to === update.to) return [];
    const said = update.locations[0];
    return [
      {
        name: update.name,
        manifest: said?.manifest ?? "package.json",
        reason: `${said?.from ?? update.from} -> ${update.to} (${update.type}) waits until the security fix to ${fix.to} is merged: ${ONE_AT_A_TIME}`,
      },
    ];
  });
}

function advisoryFailure(error: unknown): PlanWarning {
  // Shown in pull requests: a registry URL's credentials never are.
  return { check: "advisories", error: errorMessage(error).replace(/\/\/[^/@\s]+@/g, "//") };
}

function securityGroups(updates: readonly Update[]): UpdateGroup[] {
  return updates.map((update) => ({
    slug: slugify(`security-${update.name}`),
    name: `security fix for ${update.name}`,
    single: true,
    security: true,
    updates: [update],
  }));
}
