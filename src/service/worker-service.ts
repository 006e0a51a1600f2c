import { createModelFactory } from "../agent/model/factory.js";
import type { Model } from "../agent/model/model.js";
import { cleanStaleWorkspaces } from "../git/mirror/cache.js";
import type { GitHubAppClients } from "../github/client.js";
import type { SetTimer } from "../queue/timer.js";
import type { JobWorker } from "../queue/types.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import { chooseSandbox } from "../sandbox/select.js";
import { sweepScratch } from "../scratch.js";
import { secretsInEnv } from "../secrets/patterns.js";
import type { ServiceSettings } from "./env.js";
import { createJobHandler } from "./job-handler.js";
import type { ServiceQueue } from "./job-kinds/inputs.js";
import type { ServiceLog } from "./service-log.js";
import type { WorkerServices } from "./worker-services.js";

/**
 * A worker: takes job records from the queue and runs them, `concurrency`
 * at a time. `npm start` runs one beside the webhooks (unless
 * PATCHWRIGHT_WORKER=off); `patchwright worker` runs only this, on Redis.
 */

export interface WorkerServiceOptions {
  settings: ServiceSettings;
  env: Record<string, string | undefined>;
  queue: ServiceQueue;
  github: GitHubAppClients;
  log: ServiceLog;
  clock?: { now(): number } | undefined;
  createModel?: ((modelId: string) => Model) | undefined;
  /** Where repository code runs; default: bubblewrap, or a refusal naming the fix (see select.ts). */
  sandbox?: SandboxLauncher | undefined;
  setTimer?: SetTimer | undefined;
  queuePollMs?: number | undefined;
  /** A job's page on the App's server, when its pages are on (the entry knows: pages/settings.ts). */
  jobPageUrl?: ((jobId: string) => string) | undefined;
}

const STALE_WORKSPACE_MS = 60 * 60_000;
const STALE_SCRATCH_MS = 24 * 60 * 60_000;

export function workerServices(options: WorkerServiceOptions): WorkerServices {
  const { settings, log } = options;
  let sandbox: Promise<SandboxLauncher> | undefined;
  let botLogin: Promise<string> | undefined;
  return {
    github: options.github,
    env: options.env,
    secrets: secretsInEnv(options.env),
    cacheDir: settings.cacheDir,
    cacheBytes: settings.cacheBytes,
    clock: options.clock ?? Date,
    log,
    submit: (job) => options.queue.submit(job),
    // The queue's own log: the same store, whichever process runs the job.
    eventLog: options.queue.log,
    setTimer: options.setTimer,
    queuePollMs: options.queuePollMs,
    jobPageUrl: options.jobPageUrl,
    maxAttempts: settings.maxAttempts,
    ceilings: settings.ceilings,
    createModel:
      options.createModel ??
      // anthropic/, bedrock/, vertex/ or openai/, each from its own standard variables.
      createModelFactory(options.env, {
        missingAnthropicKey: "ANTHROPIC_API_KEY is not set on the server running patchwright",
      }),
    sandbox: () => {
      sandbox ??= options.sandbox
        ? Promise.resolve(options.sandbox)
        : chooseSandbox({
            mode: "service",
            optOut: settings.unsandboxed,
            optOutName: "PATCHWRIGHT_UNSANDBOXED=1",
            path: settings.path,
            home: settings.home,
            // The cache holds every repository's mirrors; the service's folder, its .env;
            // and the key files its environment names (PRIVATE_KEY_PATH may be in /etc).
            env: options.env,
            cwd: process.cwd(),
            hidden: [settings.cacheDir, process.cwd()],
          }).then((choice) => {
            if (choice.warning) log.warn({}, choice.warning);
            for (const note of choice.notes) log.info({}, note);
            return choice.launcher;
          });
      return sandbox;
    },
    botLogin: () => {
      botLogin ??= settings.botLogin
        ? Promise.resolve(settings.botLogin)
        : options.github
            .app()
            .rest.apps.getAuthenticated()
            .then(({ data }) => `${data?.slug}[bot]`);
      // A failed lookup is asked again next time.
      botLogin.catch(() => {
        botLogin = undefined;
      });
      return botLogin;
    },
  };
}

export function startWorkerService(options: WorkerServiceOptions): JobWorker {
  const services = workerServices(options);
  // Scratch folders a killed process left (scratch.ts): a day old is no job's.
  sweepScratch({ olderThanMs: STALE_SCRATCH_MS }).then(
    (removed) => {
      if (removed.length > 0) options.log.info({ removed }, "removed stale scratch folders");
    },
    (error: unknown) => options.log.warn({ err: error }, "could not sweep scratch folders"),
  );
  cleanStaleWorkspaces(services.cacheDir, {
    olderThanMs: STALE_WORKSPACE_MS,
    env: options.env,
  }).then(
    ({ removed }) => {
      if (removed.length > 0) options.log.info({ removed }, "removed stale workspaces");
    },
    (error: unknown) => options.log.warn({ err: error }, "could not clean stale workspaces"),
  );
  return options.queue.startWorker(createJobHandler(services), {
    concurrency: options.settings.concurrency,
  });
}
