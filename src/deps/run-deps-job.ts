import type { Model } from "../agent/model/model.js";
import { buildShellEnv } from "../agent/tools/shell-env.js";
import type { RepoConfig } from "../config/schema.js";
import { errorMessage } from "../error-message.js";
import { listRemoteBranches } from "../git/branch.js";
import { checkpointRef } from "../git/commit/checkpoint-ref.js";
import type { Identity } from "../git/commit/commits.js";
import type { GitToken } from "../git/credentials.js";
import { remoteDefaultBranch } from "../git/remote-head.js";
import { prepareWorkspace } from "../git/workspace/workspace.js";
import { parseJsonText } from "../json-text.js";
import { type JobEvents, jobEvents } from "../kernel/events.js";
import { spareOption } from "../kernel/repository.js";
import { readWorkspaceText } from "../sandbox/host-files.js";
import { launcherFrom } from "../sandbox/sandbox.js";
import { type DepsConfig, parseDepsConfig } from "./config.js";
import type { DepsServices, GroupContext } from "./group/context.js";
import { runGroupLanes } from "./group/group-lanes.js";
import type { DepsGroupResult } from "./group/group-result.js";
import { createPassedLocks } from "./group/passed-tries.js";
import { runDepsGroup } from "./group/run-deps-group.js";
import { corepackRegistryEnv, managerCommands, packageManager } from "./managers/index.js";
import { toolsFor } from "./managers/project-tools.js";
import { missingTool } from "./managers/tool-check.js";
import { pinnedToolEngineProblem } from "./managers/tool-engines.js";
import { toolWarnings } from "./managers/tool-version.js";
import { createWarmInstall } from "./managers/warm-install.js";
import { registryReleaseBytes } from "./managers/yarn/release-file.js";
import { groupBranch, type UpdateGroup } from "./plan/groups.js";
import { registryInstallScripts } from "./plan/install-scripts.js";
import { type DepsPlan, planDepsUpdates } from "./plan/plan.js";
import { listBumpPulls } from "./publish/bump-pulls.js";
import { githubReleases } from "./registry/releases.js";
import type { UpstreamSource } from "./registry/upstream.js";

export type { DepsServices };

/**
 * The scheduled dependency job for one repository: plan on a fresh checkout
 * of the base branch, then run each group (see runDepsGroup) while the
 * repository is under its limit of open bump pull requests. The App's
 * scheduler and the Action (`mode: deps`) call this; the CLI too, without
 * GitHub. Run one at a time per repository: groups share the branch names.
 */

export interface DepsJobInput {
  owner: string;
  repo: string;
  cloneUrl: string;
  /** Used by git only (fetch, push), asked for anew by each; never reaches the agent or the repository's commands. */
  token?: GitToken | undefined;
  /** The branch bumps start from and pull requests target; default: the remote's default branch. */
  baseBranch?: string | undefined;
  defaultBranch?: string | undefined;
  /** The repository's config (its `deps:` section is validated here). */
  config: RepoConfig;
  /** Who the commits are by (the CLI: the user); default the config's bot. */
  identity?: Identity | undefined;
  /** false: commit in the workspace only. Default true. */
  push?: boolean | undefined;
  /** Only these group slugs (default: all). */
  groups?: readonly string[] | undefined;
  /**
   * Only updates that fix known advisories (the scheduler's check between
   * scheduled runs); a pull request already proposing the same versions is left as it is.
   */
  securityOnly?: boolean | undefined;
}

export interface DepsJobResult {
  status: "done" | "config_error" | "error";
  /** Set with config_error and error: what to tell the maintainer. */
  message?: string;
  plan?: DepsPlan;
  groups: DepsGroupResult[];
  /** Groups not started because `deps.max_open_prs` bump pull requests are open. */
  deferred: UpdateGroup[];
  /** Groups skipped because a maintainer closed a pull request for the same versions. */
  declined: Array<{ group: UpdateGroup; pullRequest: number; url: string }>;
  /** Groups that wait: another open bump pull request moves one of their packages, or already proposes them. */
  waiting: Array<{ group: UpdateGroup; reason: string }>;
  /** What went wrong around the job without stopping it (a Node older than the project's). */
  warnings?: string[];
  durationMs: number;
}

export async function runDepsJob(
  deps: DepsServices,
  input: DepsJobInput,
  events: JobEvents = jobEvents(),
): Promise<DepsJobResult> {
  const started = deps.clock.now();
  const result: DepsJobResult = {
    status: "error",
    groups: [],
    deferred: [],
    declined: [],
    waiting: [],
    durationMs: 0,
  };
  const finish = () => ({ ...result, durationMs: deps.clock.now() - started });
  const parsed = parseDepsConfig(input.config.deps);
  if (!parsed.ok) {
    return {
      ...finish(),
      status: "config_error",
      message: `The deps section of .github/patchwright.yml: ${parsed.message}`,
    };
  }
  const config = parsed.config;
  const step = (text: string, note?: string) => events.step(text, note);
  const signal = deps.signal ?? new AbortController().signal;
  const gitEnv = deps.envSource;
  const auth = input.token ? { token: input.token } : {};
  const prefix = input.config.branchPrefix;
  const warm = createWarmInstall(deps.cacheDir);

  try {
    const baseBranch =
      input.baseBranch ??
      (await remoteDefaultBranch({ url: input.cloneUrl, env: gitEnv, ...auth }));
    step(`Reading the dependencies on ${baseBranch}`);
    const planning = await prepareWorkspace({
      cloneUrl: input.cloneUrl,
      baseBranch,
      branch: `${prefix}deps-plan-${deps.clock.now().toString(36)}`,
      createBranch: true,
      cacheDir: deps.cacheDir,
      env: gitEnv,
      signal,
      keepIdle: 1,
      ...spareOption(deps),
      ...auth,
    });
    let planned: Awaited<ReturnType<typeof planDepsUpdates>>;
    let verify: string | null;
    try {
      planned = await planDepsUpdates({
        dir: planning.dir,
        config,
        env: deps.envSource,
        clock: deps.clock,
        signal,
        ...(input.securityOnly ? { securityOnly: true } : {}),
      });
      verify = await resolveVerify(
        planning.dir,
        config,
        input.config,
        managerCommands(planned.project.manager, deps.packageManagers).test,
      );
    } finally {
      await planning.cleanup();
    }
    result.plan = planned.plan;
    const commands = managerCommands(planned.project.manager, deps.packageManagers);
    const wanted = planned.plan.groups.filter(
      (g) => !input.groups || input.groups.includes(g.slug),
    );
    if (wanted.length === 0) return { ...finish(), status: "done" };
    const shellEnv = buildShellEnv(deps.envSource);
    const missing =
      (await missingTool({
        manager: planned.project.manager,
        tools: deps.packageManagers,
        env: shellEnv,
        sandbox: await launcherFrom(deps.sandbox),
      })) ??
      (await pinnedToolEngineProblem({
        manager: planned.project.manager,
        env: shellEnv,
        packument: (name) => planned.registry.packument(name),
      }));
    if (missing) return { ...finish(), status: "error", message: missing };
    // Said before any group: a group that then fails "without the updates too" fails for it.
    const before = await toolWarnings({
      nodes: planned.plan.node,
      manager: planned.project.manager,
      env: shellEnv,
      tools: deps.packageManagers,
    });
    for (const warning of before) events.warning(warning);
    if (before.length > 0) result.warnings = before;

    const remote = await listRemoteBranches({ url: input.cloneUrl, env: gitEnv, ...auth });
    const pulls = deps.octokit
      ? await listBumpPulls(deps.octokit, input, `${prefix}deps/`)
      : {
          open: new Set<string>(),
          openUpdates: new Map<string, Set<string>>(),
          declined: new Map(),
        };
    const npmEnv = {
      ...shellEnv,
      ...pick(deps.envSource, planned.npm.referencedEnv),
      ...commands.registryEnv(planned.npm.registry, shellEnv),
    };
    // npm's --before cutoff: the cooldown, or the package manager's own age gate when longer.
    const ageGateMs = planned.plan.releaseAge?.ms ?? 0;
    const cooldownMs = Math.max(config.cooldownDays * 86_400_000, ageGateMs);
    let model: Model | undefined;
    const ctx: Omit<GroupContext, "branchExists" | "events" | "warm"> = {
      services: deps,
      signal,
      gitEnv,
      passed: new Map(),
      locked: createPassedLocks(),
      target: {
        cloneUrl: input.cloneUrl,
        token: input.token,
        owner: input.owner,
        repo: input.repo,
        baseBranch,
        defaultBranch: input.defaultBranch ?? baseBranch,
        branchPrefix: prefix,
        identity: input.identity ?? input.config.bot,
        push: input.push ?? true,
        labels: config.labels,
        planWarnings: planned.plan.warnings,
      },
      tools: {
        manifests: planned.plan.manifests,
        lockfilePath: planned.project.lockfilePath,
        installScripts: registryInstallScripts(planned.registry),
        network: input.config.network,
        setupNetwork: input.config.setupNetwork,
        shellEnv,
        npmEnv,
        install: config.install ?? commands.install,
        // With a tree already installed, the tool changes only what the lockfile changed.
        reinstall: config.install ? undefined : commands.reinstall,
        lockfileCommand: commands.lockfile,
        cacheEnv: commands.cacheEnv,
        launchEnv: commands.launchEnv,
        shims: commands.shims,
        agentTools: (root) =>
          toolsFor(planned.project.manager, commands.shims(root), {
            launchEnv: commands.launchEnv,
            registryEnv: corepackRegistryEnv(planned.npm.registry, shellEnv),
            path: shellEnv.PATH,
          }),
        releaseBytes: registryReleaseBytes(planned.registry, signal),
        hideTreeFromLockfile: packageManager(planned.project.manager.name).readsInstalledTree,
        verify,
        commandTimeoutSeconds: input.config.verifyTimeoutSeconds,
        before: cooldownMs > 0 ? new Date(deps.clock.now() - cooldownMs) : undefined,
        securityBefore: ageGateMs > 0 ? new Date(deps.clock.now() - ageGateMs) : undefined,
      },
      agent: {
        model: () => {
          model ??= deps.createModel(input.config.model, { pricing: input.config.pricing });
          return model;
        },
        policy: input.config.policy,
        limits: {
          maxTurns: input.config.maxTurns,
          maxCostUsd: input.config.maxCostUsd,
          maxDurationMs: input.config.maxMinutes * 60_000,
        },
        upstream: {
          tarball: (name, version, abort) => planned.registry.tarball(name, version, abort),
          ...releasesOf(deps),
        },
        maxBisectChecks: config.maxBisectChecks,
      },
      ...(deps.checkpoints ? { checkpointRef: groupCheckpoints(deps.checkpoints.jobId) } : {}),
    };

    const lanes = await runGroupLanes({
      groups: wanted,
      pulls,
      prefix,
      maxOpenPrs: config.maxOpenPrs,
      opensPulls: deps.octokit !== undefined,
      securityOnly: input.securityOnly === true,
      lanes: deps.groupConcurrency ?? 2,
      warm,
      newShelf: () => createWarmInstall(deps.cacheDir),
      signal,
      run: (group, shelf, sideBySide) =>
        runDepsGroup(
          {
            ...ctx,
            events: sideBySide ? prefixed(events, group.slug) : events,
            warm: shelf,
            branchExists: remote.has(groupBranch(prefix, group)),
          },
          group,
        ),
    });
    Object.assign(result, lanes);
    signal.throwIfAborted();
    return { ...finish(), status: "done" };
  } catch (error) {
    return {
      ...finish(),
      status: "error",
      message: errorMessage(error),
    };
  } finally {
    await warm.dispose();
  }
}

/**
 * `deps.verify`, else the repository's `verify`, else `npm test` when the
 * root package.json has a real test script (not npm init's placeholder).
 */
export async function resolveVerify(
  dir: string,
  deps: DepsConfig,
  repo: Pick<RepoConfig, "verify">,
  testCommand = "npm test",
): Promise<string | null> {
  if (deps.verify !== undefined) return deps.verify;
  if (repo.verify) return repo.verify;
  const manifest = parseJsonText(await readWorkspaceText(dir, "package.json")) as {
    scripts?: Record<string, unknown>;
  };
  const test = manifest.scripts?.test;
  return typeof test === "string" && !/no test specified/.test(test) ? testCommand : null;
}

function pick(
  env: Record<string, string | undefined>,
  names: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** One checkpoint ref per group of the job: the groups of one run share nothing. */
function groupCheckpoints(jobId: string): NonNullable<GroupContext["checkpointRef"]> {
  return (group) => checkpointRef(`${jobId}-deps-${group.slug}`);
}

/** Groups side by side: each step names its group. */
function prefixed(events: JobEvents, slug: string): JobEvents {
  return { ...events, step: (text, note) => events.step(`${slug}: ${text}`, note) };
}

function releasesOf(deps: DepsServices): Pick<UpstreamSource, "releases"> {
  const releases = deps.releases ?? (deps.octokit ? githubReleases(deps.octokit) : undefined);
  return releases ? { releases } : {};
}
