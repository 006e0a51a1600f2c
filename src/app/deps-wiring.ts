import type { Probot } from "probot";
import type { Model } from "../agent/model.js";
import { loadRepoConfig } from "../config/load.js";
import { depsScheduleOf } from "../deps/config.js";
import { runDepsJob } from "../deps/run-deps-job.js";
import type { GitHubClient } from "../github/octokit.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import { createDepsScheduler, type ScheduledRepository } from "./deps-scheduler.js";
import type { JobQueue } from "./queue.js";

export interface AppDepsSchedulerSettings {
  probot: Probot;
  queue: JobQueue;
  env: Record<string, string | undefined>;
  cacheDir: string;
  sandbox: () => Promise<SandboxLauncher>;
  clock: { now(): number };
  createModel: (modelId: string) => Model;
}

/**
 * Connects the scheduler to GitHub: the repositories of every installation,
 * each one's `deps:` schedule from its default branch, and a run of the
 * dependency-bump job with a fresh installation token.
 */
export function createAppDepsScheduler(settings: AppDepsSchedulerSettings) {
  const { probot } = settings;
  const installationClient = async (id: number) =>
    (await probot.auth(id)) as unknown as GitHubClient;

  const listRepositories = async (): Promise<ScheduledRepository[]> => {
    const appOctokit = await probot.auth();
    const installations = await appOctokit.paginate(appOctokit.rest.apps.listInstallations, {
      per_page: 100,
    });
    const lists = await Promise.all(
      installations.map(async (installation) => {
        const octokit = await probot.auth(installation.id);
        const repos = await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, {
          per_page: 100,
        });
        return repos
          .filter((r) => !r.archived && !r.disabled)
          .map((r) => ({
            installationId: installation.id,
            owner: r.owner.login,
            repo: r.name,
            cloneUrl: r.clone_url,
            defaultBranch: r.default_branch,
          }));
      }),
    );
    return lists.flat();
  };

  return createDepsScheduler({
    queue: settings.queue,
    clock: settings.clock,
    listRepositories,
    scheduleOf: async (repository) => {
      const loaded = await loadRepoConfig(await installationClient(repository.installationId), {
        owner: repository.owner,
        repo: repository.repo,
        ref: repository.defaultBranch,
      });
      return loaded.ok
        ? depsScheduleOf(loaded.config.deps)
        : { enabled: false, reason: loaded.error.message };
    },
    run: async (repository) => {
      const octokit = await installationClient(repository.installationId);
      const loaded = await loadRepoConfig(octokit, {
        owner: repository.owner,
        repo: repository.repo,
        ref: repository.defaultBranch,
      });
      if (!loaded.ok) return;
      const appOctokit = await probot.auth();
      const { data } = await appOctokit.rest.apps.createInstallationAccessToken({
        installation_id: repository.installationId,
      });
      const result = await runDepsJob(
        {
          cacheDir: settings.cacheDir,
          sandbox: await settings.sandbox(),
          envSource: settings.env,
          clock: settings.clock,
          createModel: settings.createModel,
          octokit,
        },
        {
          owner: repository.owner,
          repo: repository.repo,
          cloneUrl: repository.cloneUrl,
          token: data.token,
          defaultBranch: repository.defaultBranch,
          config: loaded.config,
        },
      );
      probot.log.info(
        { repo: `${repository.owner}/${repository.repo}`, status: result.status },
        "dependency run finished",
      );
    },
    onError: (error, repository) =>
      probot.log.warn(
        { err: error, repo: repository ? `${repository.owner}/${repository.repo}` : undefined },
        "dependency scheduler",
      ),
  });
}
