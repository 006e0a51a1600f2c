import picomatch from "picomatch";
import { errorMessage } from "../error-message.js";
import type { DepsConfig } from "./config.js";
import { groupUpdates, slugify, type UpdateGroup } from "./groups.js";
import { type NpmConfig, readNpmConfig } from "./npmrc.js";
import { findUpdates, listDependencies, type SkippedDependency, type Update } from "./outdated.js";
import { checkPeers } from "./peers.js";
import { lockedPeerDeclarers, type NpmProject, readNpmProject } from "./project.js";
import { type ProjectNode, readProjectNode } from "./project-node.js";
import {
  type Advisory,
  createRegistryClient,
  type FetchJson,
  type RegistryClient,
} from "./registry.js";
import { type ReleaseAge, readReleaseAge } from "./release-age.js";
import { advisoryRequest, findSecurityUpdates } from "./security.js";
import { findTransitiveSecurityUpdates, readLockedGraph } from "./transitive-security.js";

/** What a run would do: the groups (one pull request each) and what was left out, and why. */
export interface DepsPlan {
  registry: string;
  manifests: string[];
  groups: UpdateGroup[];
  skipped: SkippedDependency[];
  upToDate: number;
  /** Dependencies between the workspace's own packages (left to npm). */
  internal: number;
  /** The package manager that writes the lockfile: npm, pnpm, yarn-classic, yarn-berry, bun. */
  manager: string;
  /** deps.max_open_prs: groups past it wait for earlier pull requests to close. */
  maxOpenPrs: number;
  /** The Node the engines check used, and where it came from. */
  node: ProjectNode;
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
  const rootJson = JSON.parse(project.manifests[0]?.text ?? "{}") as Record<string, unknown>;
  const node = await readProjectNode(options.dir, rootJson, options.runningNode ?? process.version);
  const releaseAge = await readReleaseAge(options.dir, npm);
  const now = options.clock.now();
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
  const found = await findUpdates({
    project,
    registry,
    config: options.config,
    now,
    node,
    releaseAge,
    ...(known ? { onlyNames: new Set(Object.keys(known)) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const skipped = [...found.skipped];
  let security: Update[] = [];
  if (securityError) skipped.push(advisoryFailure(securityError));
  else if (options.config.securityUpdates) {
    try {
      const findings = await findSecurityUpdates({
        entries: found.entries,
        packuments: found.packuments,
        registry,
        config: options.config,
        hasLockfile: project.lockfilePath !== undefined,
        now,
        node,
        releaseAge,
        signal: options.signal,
        known,
      });
      security = findings.updates;
      skipped.push(...findings.skipped);
      // What the project does not name itself, from npm's lockfile, as npm audit sees it.
      const direct = new Set(project.manifests.flatMap((m) => m.deps.map((d) => d.name)));
      const graph = await readLockedGraph(project.dir, project.lockfilePath, direct);
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
      // No advisories is no reason to hold back the other updates; say so.
      skipped.push(advisoryFailure(error));
    }
  }
  const securityNames = new Set(security.map((u) => u.name));
  if (!options.securityOnly) skipped.push(...waitingForSecurity(found.updates, security));
  const regular = options.securityOnly
    ? []
    : onePerPackage(
        found.updates.filter((u) => !securityNames.has(u.name)),
        options.config,
        skipped,
      );
  const peers = checkPeers(
    [...security, ...regular],
    found.installed,
    found.packuments,
    lockedPeerDeclarers(project.lockfile),
  );
  skipped.push(...peers.skipped);
  const kept = new Set(peers.updates);
  const plan: DepsPlan = {
    registry: npm.registry,
    manifests: project.manifests.map((m) => m.path),
    groups: [
      ...securityGroups(security.filter((u) => kept.has(u))),
      ...groupUpdates(
        regular.filter((u) => kept.has(u)),
        options.config,
        // A security fix ships alone: its partners wait for their own pull request.
        peers.links.filter((names) => !names.some((n) => securityNames.has(n))),
      ),
    ],
    skipped,
    upToDate: found.upToDate,
    internal: found.internal,
    maxOpenPrs: options.config.maxOpenPrs,
    manager: project.manager.name,
    node,
    ...(releaseAge ? { releaseAge } : {}),
  };
  return { plan, project, npm, registry };
}

/**
 * One open pull request per package: when a package has both an update
 * inside its major (grouped) and a new major (alone), the major waits until
 * the first is merged, so the two never fight over one line of package.json.
 */
function onePerPackage(
  updates: readonly Update[],
  config: DepsConfig,
  skipped: SkippedDependency[],
): Update[] {
  const nonMajor = new Map(updates.filter((u) => u.type !== "major").map((u) => [u.name, u]));
  return updates.filter((update) => {
    const first = update.type === "major" ? nonMajor.get(update.name) : undefined;
    if (!first) return true;
    // A configured group that takes both holds one update (the newest), so nothing conflicts.
    const together = config.groups.some(
      (g) =>
        g.updateTypes.includes("major") &&
        g.updateTypes.includes(first.type) &&
        picomatch.isMatch(update.name, g.patterns),
    );
    if (together) return true;
    const manifest = update.locations[0]?.manifest ?? "package.json";
    skipped.push({
      name: update.name,
      manifest,
      reason: `${update.to} (major) waits until the update to ${first.to} is merged: one pull request per package at a time`,
    });
    return false;
  });
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
    return [
      {
        name: update.name,
        manifest: update.locations[0]?.manifest ?? "package.json",
        reason: `${update.to} (${update.type}) waits until the security fix to ${fix.to} is merged: one pull request per package at a time`,
      },
    ];
  });
}

function advisoryFailure(error: unknown): SkippedDependency {
  return { name: "(security advisories)", manifest: "package.json", reason: errorMessage(error) };
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
