import type { Probot } from "probot";
import { loadRepoConfig } from "../config/load.js";
import { depsScheduleOf } from "../deps/config.js";
import type { GitHubClient } from "../github/octokit.js";
import type { ServiceQueue } from "../service/job-kinds/inputs.js";
import { createDepsScheduler, type ScheduledRepository } from "./deps-scheduler.js";

const SECURITY_EVERY_MS = 15 * 60_000;

export interface AppDepsSchedulerSettings {
  probot: Probot;
  queue: Pick<ServiceQueue, "submit">;
  clock: { now(): number };
}

/**
 * Connects the scheduler to GitHub: the repositories of every installation
 * and each one's `deps:` schedule from its default branch. A run that is
 * due becomes a job in the queue (service/job-kinds/deps.ts runs it).
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
    // Advisories do not wait for a repository's schedule; a security-only run is cheap when there is nothing to fix.
    securityEveryMs: SECURITY_EVERY_MS,
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
    onError: (error, repository) =>
      probot.log.warn(
        { err: error, repo: repository ? `${repository.owner}/${repository.repo}` : undefined },
        "dependency scheduler",
      ),
  });
}
