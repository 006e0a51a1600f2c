import type { DepsConfig } from "./config.js";
import { groupUpdates, type UpdateGroup } from "./groups.js";
import { type NpmConfig, readNpmConfig } from "./npmrc.js";
import { findUpdates, type SkippedDependency } from "./outdated.js";
import { type NpmProject, readNpmProject, unsupportedMessage } from "./project.js";
import { createRegistryClient, type FetchJson, type RegistryClient } from "./registry.js";

/** What a run would do: the groups (one pull request each) and what was left out, and why. */
export interface DepsPlan {
  registry: string;
  manifests: string[];
  groups: UpdateGroup[];
  skipped: SkippedDependency[];
  upToDate: number;
  /** Dependencies between the workspace's own packages (left to npm). */
  internal: number;
  /** Set when the project uses another package manager: the plan is informational only. */
  warning?: string;
  /** deps.max_open_prs: groups past it wait for earlier pull requests to close. */
  maxOpenPrs: number;
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
  const found = await findUpdates({
    project,
    registry,
    config: options.config,
    now: options.clock.now(),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const plan: DepsPlan = {
    registry: npm.registry,
    manifests: project.manifests.map((m) => m.path),
    groups: groupUpdates(found.updates, options.config),
    skipped: found.skipped,
    upToDate: found.upToDate,
    internal: found.internal,
    maxOpenPrs: options.config.maxOpenPrs,
  };
  if (project.otherManager) plan.warning = unsupportedMessage(project.otherManager);
  return { plan, project, npm, registry };
}
