import { z } from "zod";
import { loadRepoConfig } from "../config/load.js";
import { runDepsJob } from "../deps/run-deps-job.js";
import { installationToken } from "../github/client.js";
import type { JobResult, RunningJob } from "../queue/types.js";
import { secretsInEnv } from "../secrets/patterns.js";
import type { WorkerDeps } from "./worker-deps.js";

/** A scheduled dependency run, as the App's scheduler stores it. */
export const scheduledRepositorySchema = z.object({
  installationId: z.number().int(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  cloneUrl: z.string().min(1),
  defaultBranch: z.string().min(1),
  /** Only updates that fix known advisories (the scheduler's check between scheduled runs). */
  securityOnly: z.boolean().optional(),
});
export type ScheduledRepository = z.infer<typeof scheduledRepositorySchema>;

/**
 * Runs the dependency-bump job of one repository from its record, with the
 * config read from the default branch when the run starts and a fresh
 * installation token. Its pull requests say what happened; the log says
 * the rest. A run cut short by a deploy runs again after the restart.
 */
export async function runDepsRecord(deps: WorkerDeps, job: RunningJob): Promise<JobResult> {
  const parsed = scheduledRepositorySchema.safeParse(job.record.inputs[0]);
  if (!parsed.success) return { status: "failed", message: "the job record holds no repository" };
  const repository = parsed.data;
  const name = `${repository.owner}/${repository.repo}`;
  const octokit = deps.github.installation(repository.installationId);
  const loaded = await loadRepoConfig(octokit, {
    owner: repository.owner,
    repo: repository.repo,
    ref: repository.defaultBranch,
    ceilings: deps.ceilings,
  });
  if (!loaded.ok) {
    deps.log.info(
      { repo: name, error: loaded.error.message },
      "dependency run skipped: bad config",
    );
    return { status: "done", conclusion: "config_error", message: loaded.error.message };
  }
  const result = await runDepsJob(
    {
      cacheDir: deps.cacheDir,
      sandbox: await deps.sandbox(),
      envSource: deps.env,
      secrets: secretsInEnv(deps.env),
      clock: deps.clock,
      createModel: deps.createModel,
      octokit,
      signal: job.signal,
      // A deploy in the middle of an agent's fix keeps the fix for the next run.
      checkpoints: { jobId: job.record.id },
    },
    {
      owner: repository.owner,
      repo: repository.repo,
      cloneUrl: repository.cloneUrl,
      token: await installationToken(octokit),
      defaultBranch: repository.defaultBranch,
      config: loaded.config,
      ...(repository.securityOnly ? { securityOnly: true } : {}),
    },
  );
  if (job.signal.aborted) return { status: "interrupted" };
  deps.log.info({ repo: name, status: result.status }, "dependency run finished");
  return {
    status: "done",
    conclusion: result.status,
    ...(result.message ? { message: result.message } : {}),
  };
}
