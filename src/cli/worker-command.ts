import { jobPageUrl, parsePagesEnv } from "../pages/settings.js";
import { parseServiceEnv, ServiceEnvError } from "../service/env.js";
import { serviceGitHubClients } from "../service/github-clients.js";
import { createLineLog } from "../service/line-log.js";
import { openJobQueue, requireCacheFolder } from "../service/open-queue.js";
import { stopOnSignals } from "../service/shutdown.js";
import type { CliIo } from "./cli-io.js";
import { UsageError } from "./usage-error.js";

export const WORKER_USAGE = `Usage: patchwright worker

Runs jobs from the App's queue on Redis, until SIGTERM or Ctrl+C. Run any number,
on any machines, next to an App started with the same REDIS_URL (npm start; with
PATCHWRIGHT_WORKER=off it only takes webhooks).

Environment (as for npm start): REDIS_URL, APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH,
ANTHROPIC_API_KEY, GHE_HOST, PATCHWRIGHT_CONCURRENCY (jobs at once, default 2),
PATCHWRIGHT_SHUTDOWN_GRACE_SECONDS (default 60), PATCHWRIGHT_CACHE_DIR, LOG_FORMAT=json.

On SIGTERM it takes no new jobs; running ones get the grace period, then save a
checkpoint, say so on their comment and go back to the queue for another worker.
A second signal, or a stop still going 30 s after the grace period, exits at once.`;

/** `patchwright worker`: resolves with the exit code once it has stopped. */
export async function runWorkerCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes("-h") || argv.includes("--help")) {
    io.stdout.write(`${WORKER_USAGE}\n`);
    return 0;
  }
  if (argv.length > 0) throw new UsageError(`worker takes no arguments, got "${argv[0]}"`);
  // Each reason not to start is a StartupRefusal naming the setting (main.ts prints it, exit 1).
  const settings = parseServiceEnv(io.env);
  if (!settings.redisUrl) {
    throw new ServiceEnvError(
      "the worker takes its jobs from Redis: set REDIS_URL (without Redis, npm start runs the jobs itself)",
    );
  }
  if (!settings.appId || !settings.privateKey) {
    throw new ServiceEnvError(
      "the worker acts as the GitHub App: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH)",
    );
  }
  // Mirrors and worktrees live there: every job would fail without it.
  await requireCacheFolder(settings.cacheDir);
  const log = createLineLog(io.stderr, { json: io.env.LOG_FORMAT === "json", clock: io.clock });
  const queue = await openJobQueue(settings, {
    clock: io.clock,
    onError: (error, record) => log.error({ err: error, job: record?.id }, "job queue"),
  });
  const { clients: github, close: closeClients } = await serviceGitHubClients(settings, {
    debug: () => {},
    info: (message) => log.info({}, message),
    warn: (message) => log.warn({}, message),
    error: (message) => log.error({}, message),
  });
  // The jobs' code (the agent, git, the sandbox) loads once nothing stands in the way.
  const { startWorkerService } = await import("../service/worker-service.js");
  // The App serves the pages; a worker only links to them when the same settings turn them on.
  const pages = parsePagesEnv(io.env, settings.apiBaseUrl);
  const worker = startWorkerService({
    settings,
    env: io.env,
    queue,
    github,
    log,
    clock: io.clock,
    jobPageUrl: jobPageUrl(pages),
  });
  log.info({ concurrency: settings.concurrency }, "worker started");

  return await new Promise<number>((stopped) =>
    stopOnSignals({
      subscribe: (handler) => io.onInterrupt(handler),
      stop: async () => {
        await worker.stop(settings.shutdownGraceMs);
        await queue.close();
        await closeClients();
      },
      log,
      graceMs: settings.shutdownGraceMs,
      stopped,
      exitNow: io.exit ?? ((code) => process.exit(code)),
    }),
  );
}
