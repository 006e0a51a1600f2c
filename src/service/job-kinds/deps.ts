import { createRedactor } from "../../agent/redact.js";
import { loadRepoConfig } from "../../config/load.js";
import { installationToken } from "../../github/client.js";
import { jobEvents } from "../../kernel/events.js";
import type { JobResult } from "../../queue/types.js";
import { createJobRecorder } from "../jobs-view/recorder.js";
import type { WorkerServices } from "../worker-services.js";
import type { KindJob } from "./inputs.js";
import type { JobKindDefinition } from "./kind.js";

/**
 * Runs the dependency-bump job of one repository from its record, with the
 * config read from the default branch when the run starts and a fresh
 * installation token. Its pull requests say what happened; the log says
 * the rest. A run cut short by a deploy runs again after the restart.
 */
export const depsKind: JobKindDefinition<"deps"> = { kind: "deps", run: runDepsRecord };

async function runDepsRecord(job: KindJob<"deps">, services: WorkerServices): Promise<JobResult> {
  const [repository] = job.record.inputs;
  if (!repository) return { status: "failed", message: "the job record holds no repository" };
  const name = `${repository.owner}/${repository.repo}`;
  const octokit = services.github.installation(repository.installationId);
  const loaded = await loadRepoConfig(octokit, {
    owner: repository.owner,
    repo: repository.repo,
    ref: repository.defaultBranch,
    ceilings: services.ceilings,
  });
  if (!loaded.ok) {
    services.log.info(
      { repo: name, error: loaded.error.message },
      "dependency run skipped: bad config",
    );
    return { status: "done", conclusion: "config_error", message: loaded.error.message };
  }
  const token = await installationToken(octokit);
  const { secrets } = services;
  // The job page's transcript: its steps, warnings and the fixing agent's work.
  const recorder = services.eventLog
    ? createJobRecorder({
        log: services.eventLog,
        jobId: job.record.id,
        redact: createRedactor([...secrets.map((secret) => secret.value), token]),
        clock: services.clock,
        stats: job.record.stats,
        saveStats: (stats) => job.update({ stats }),
        onError: (error) => services.log.warn({ err: error, job: job.record.id }, "event log"),
      })
    : undefined;
  // Loaded with the first dependency run: the bump job's code and its
  // registry client are a good part of a process's start otherwise.
  const { runDepsJob } = await import("../../deps/run-deps-job.js");
  const result = await runDepsJob(
    {
      cacheDir: services.cacheDir,
      sandbox: services.sandbox,
      envSource: services.env,
      secrets,
      clock: services.clock,
      createModel: services.createModel,
      octokit,
      signal: job.signal,
      // A deploy in the middle of an agent's fix keeps the fix for the next run.
      checkpoints: { jobId: job.record.id },
    },
    {
      owner: repository.owner,
      repo: repository.repo,
      cloneUrl: repository.cloneUrl,
      // Asked for by each git command: a run of many groups outlasts the first token's hour.
      token: () => installationToken(octokit),
      defaultBranch: repository.defaultBranch,
      config: loaded.config,
      ...(repository.securityOnly ? { securityOnly: true } : {}),
    },
    jobEvents(recorder?.events),
  ).finally(async () => {
    if (!recorder) return;
    await job.update({ stats: recorder.stats() }).catch(() => {});
    await recorder.flush();
  });
  if (job.signal.aborted) return { status: "interrupted" };
  services.log.info({ repo: name, status: result.status }, "dependency run finished");
  return {
    status: "done",
    conclusion: result.status,
    ...(result.message ? { message: result.message } : {}),
  };
}
