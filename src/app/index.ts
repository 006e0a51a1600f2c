import type { ApplicationFunctionOptions, Probot } from "probot";
import type { Model } from "../agent/model/model.js";
import type { GitHubAppClients } from "../github/client.js";
import type { GitHubClient } from "../github/octokit.js";
import { reactToTrigger } from "../github/reactions.js";
import { createPagesHandler } from "../pages/router.js";
import { jobPageUrl, parsePagesEnv } from "../pages/settings.js";
import type { SetTimer } from "../queue/timer.js";
import type { JobWorker } from "../queue/types.js";
import { type JobRequest, jobKey, triggerKey } from "../requests/request.js";
import { parseTrigger } from "../requests/triggers.js";
import { type BaseMoved, parseBaseMoved } from "../requests/upkeep-triggers.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import { serviceGitHubClients } from "../service/github-clients.js";
import type { ServiceQueue } from "../service/job-kinds/inputs.js";
import { createJobsView } from "../service/jobs-view/index.js";
import type { JobsView } from "../service/jobs-view/types.js";
import { openJobQueue, requireCacheFolder } from "../service/open-queue.js";
import { processSignals, stopOnSignals } from "../service/shutdown.js";
import { isDebugLevel, refusalText } from "../service/startup-refusal.js";
import { createTriggerGate } from "../service/trigger-gate.js";
import { startWorkerService, workerServices } from "../service/worker-service.js";
import { isOwnRequest, isUpkeepEvent } from "../thread/start-rules.js";
import { createAppDepsScheduler } from "./deps-wiring.js";
import { takeDeliveries } from "./intake.js";
import { type RedeliverySettings, startRedeliverySweep } from "./redelivery.js";
import { appServiceSettings } from "./start-checks.js";

export const TRIGGER_EVENTS = [
  "issue_comment.created",
  "pull_request_review_comment.created",
  "pull_request_review.submitted",
  "issues.opened",
  "issues.labeled",
  // CI that failed on a pull request's head (GitHub sends both for an Actions run).
  "workflow_run.completed",
  "check_suite.completed",
] as const;

/** The events (header names) the App's triggers come from. */
const TRIGGER_EVENT_NAMES = new Set(TRIGGER_EVENTS.map((name) => name.split(".")[0] ?? name));

export interface AppSettings {
  env: Record<string, string | undefined>;
  clock?: { now(): number };
  createModel?: (modelId: string) => Model;
  /** Where repository code runs; default: bubblewrap, or a refusal naming the fix (see select.ts). */
  sandbox?: SandboxLauncher;
  /** The worker's GitHub clients; default: from APP_ID, PRIVATE_KEY and GHE_HOST. */
  github?: GitHubAppClients;
  /** Default: BullMQ on REDIS_URL, else the embedded queue on disk in the cache directory. */
  queue?: ServiceQueue;
  /** `npm start`: SIGTERM and SIGINT stop gracefully and exit the process. Off in tests. */
  exitOnSignals?: boolean;
  setTimer?: SetTimer;
  /** How often a running job looks at the requests queued behind it (default 10 s). */
  queuePollMs?: number;
  /**
   * `npm start`: what a refusal to start (a setting, the cache folder, Redis)
   * does instead of rejecting Probot's load with a stack trace.
   */
  refuse?: (error: unknown) => never;
  /**
   * What the job pages (/jobs) show; they are on with an OAuth client and
   * PATCHWRIGHT_PUBLIC_URL (pages/settings.ts), and say how to turn them on otherwise.
   * Default: the App's own queue and its event log.
   */
  jobsView?: JobsView;
  /** When the App asks GitHub again for deliveries that failed (redelivery.ts); false: never. */
  redelivery?: RedeliverySettings | false;
}

const SCHEDULER_TICK_MS = 60_000;
const STORE_TIMEOUT_MS = 8_000;

function withTimeout<T>(ms: number, message: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(message)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function acknowledgeFolded(octokit: GitHubClient, request: JobRequest): Promise<void> {
  const repo = { owner: request.repo.owner, repo: request.repo.name };
  return reactToTrigger(octokit, repo, request.target.number, request.source, "eyes");
}

/**
 * Builds the Probot app. A webhook is answered once its job is stored:
 * parse, drop what is not for the bot (before any API call, see
 * trigger-gate.ts), then a durable record in the queue (a failure there is
 * a 5xx, so GitHub can deliver again). Workers (one in this process unless
 * PATCHWRIGHT_WORKER=off, and any `patchwright worker` on the same Redis)
 * admit and run the jobs. `idle()` waits for both sides; `stop()` is what
 * SIGTERM does.
 */
export function createApp(settings: AppSettings) {
  // Parsed once, here at the entry: a bad value stops the start with its name.
  const service = appServiceSettings(settings.env, settings.queue !== undefined);
  const pages = parsePagesEnv(settings.env, service.apiBaseUrl);
  const clock = settings.clock ?? Date;
  const inFlight = new Set<Promise<unknown>>();
  /** `work`, counted by idle() and waited for by stop() until it settles. */
  const tracked = async <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    try {
      return await work;
    } finally {
      inFlight.delete(work);
    }
  };
  let queue: ServiceQueue | undefined;
  let worker: JobWorker | undefined;
  let scheduler: ReturnType<typeof setInterval> | undefined;
  let redelivery: { stop(): void } | undefined;
  let closeClients = async () => {};

  const app = async (probot: Probot, appOptions?: ApplicationFunctionOptions): Promise<void> => {
    const log = probot.log;
    let jobs: ServiceQueue;
    let services: ReturnType<typeof workerServices>;
    let appClients: GitHubAppClients;
    try {
      // The worker's mirrors and worktrees live in the cache: a folder it cannot write stops the start.
      if (service.inProcessWorker && !settings.queue) await requireCacheFolder(service.cacheDir);
      jobs =
        settings.queue ??
        (await openJobQueue(service, {
          clock,
          onError: (error, record) => log.error({ err: error, job: record?.id }, "job queue"),
        }));
      queue = jobs;
      // The pages read the same queue the workers run, and its event log.
      mountPages(
        appOptions,
        createPagesHandler({
          config: pages,
          view: settings.jobsView ?? createJobsView({ queue: jobs }),
          clock,
          log,
        }),
        log,
      );
      let github = settings.github;
      if (!github) {
        const own = await serviceGitHubClients(service, probot.log);
        github = own.clients;
        closeClients = own.close;
      }
      appClients = github;
      const options = {
        settings: service,
        env: settings.env,
        queue: jobs,
        github,
        log,
        clock,
        createModel: settings.createModel,
        sandbox: settings.sandbox,
        setTimer: settings.setTimer,
        jobPageUrl: jobPageUrl(pages),
        queuePollMs: settings.queuePollMs,
      };
      services = workerServices(options);
      if (service.inProcessWorker) worker = startWorkerService(options);
    } catch (error) {
      if (settings.refuse) settings.refuse(error);
      throw error;
    }

    // Scheduled dependency bumps: every minute, each repository whose `deps:`
    // cron fired gets one job (PATCHWRIGHT_DEPS_SCHEDULER=off disables).
    if (service.depsScheduler) {
      const bumps = createAppDepsScheduler({ probot, queue: jobs, clock });
      scheduler = setInterval(() => void bumps.tick(), SCHEDULER_TICK_MS);
      scheduler.unref();
    }

    // Webhooks GitHub could not deliver (the App down for a deploy, a 5xx
    // while the store was away) are asked for again: GitHub never resends.
    if (settings.redelivery !== false) {
      redelivery = startRedeliverySweep({
        app: () => appClients.app(),
        events: new Set([...TRIGGER_EVENT_NAMES, "push"]),
        clock,
        log,
        settings: settings.redelivery,
      });
    }

    const gate = createTriggerGate({ botLogin: services.botLogin, clock });

    /** Stores the job a trigger asks for; `client` is asked for only when GitHub must be called. */
    const takeTrigger = async (
      request: JobRequest,
      client: () => Promise<GitHubClient>,
    ): Promise<void> => {
      // Sent to the App itself (a test delivery, say), not for an installation: nothing to act as.
      if (request.installationId === undefined) {
        log.info({ delivery: request.deliveryId }, "delivery without an installation");
        return;
      }
      const work = (async () => {
        if (!(await gate.admits(client, request))) {
          log.debug({ key: jobKey(request), delivery: request.deliveryId }, "not for the bot");
          return undefined;
        }
        // Thrown when the store fails or hangs (Redis unreachable): the webhook
        // gets a 5xx before GitHub's own 10 s timeout, and may be delivered again.
        const submitted = await withTimeout(
          STORE_TIMEOUT_MS,
          "the job store did not answer",
          jobs.submit({
            kind: "request",
            key: jobKey(request),
            deliveryId: request.deliveryId,
            triggerId: triggerKey(request),
            installationId: request.installationId,
            input: request,
            coalesce: true,
          }),
        );
        log.info(
          { key: jobKey(request), delivery: request.deliveryId, ...submitted },
          submitted.status === "duplicate" ? "duplicate delivery" : "job stored",
        );
        return submitted;
      })();
      const submitted = await tracked(work);
      // Folded into the job waiting on this thread: its requester sees it was
      // taken now, not when that job starts; the job's 🚀 or 😕 ends it
      // (service/answered-requests.ts). After the answer: a write may wait
      // for GitHub's spacing, the webhook need not.
      if (submitted?.status === "coalesced" && !isUpkeepEvent(request)) {
        const seen = (async () => acknowledgeFolded(await client(), request))();
        void tracked(seen).catch((error: unknown) =>
          log.warn({ err: error, key: jobKey(request) }, "could not add the eyes reaction"),
        );
      }
    };

    /** A branch moved: the bot's pull requests based on it may conflict now. */
    const takeBaseMoved = async (moved: BaseMoved): Promise<void> => {
      // The config is read from the default branch: a new trigger phrase counts from this push on.
      if (moved.baseRef === moved.repo.defaultBranch) gate.forget(moved.repo);
      // The bot's own pushes move its own branches, which nothing is based on.
      const bot = await services.botLogin().catch(() => "");
      const pusher = { login: moved.sender, id: 0, type: "Bot" as const };
      if (bot && isOwnRequest({ requester: pusher }, bot)) return;
      const key = `${moved.repo.owner}/${moved.repo.name}@${moved.baseRef}`.toLowerCase();
      await tracked(
        withTimeout(
          STORE_TIMEOUT_MS,
          "the job store did not answer",
          jobs.submit({
            kind: "base_moved",
            key,
            deliveryId: moved.deliveryId,
            triggerId: `${key}:${moved.after}`,
            installationId: moved.installationId,
            input: moved,
          }),
        ),
      );
    };

    // Deliveries over HTTP: verified, parsed and answered once, by the App's own door (intake.ts).
    takeDeliveries(probot, (event, payload, delivery) => {
      if (event === "push") {
        const moved = parseBaseMoved(payload, delivery);
        return async () => (moved ? takeBaseMoved(moved) : undefined);
      }
      if (!TRIGGER_EVENT_NAMES.has(event)) return null;
      const request = parseTrigger(event, payload, delivery);
      const installationId = request?.installationId;
      const client = () => probot.auth(installationId) as unknown as Promise<GitHubClient>;
      return async () => (request ? takeTrigger(request, client) : undefined);
    });
    // Deliveries handed to Probot itself (`probot.receive`, as tests do) take the same paths.
    probot.on([...TRIGGER_EVENTS], async (context) => {
      const request = parseTrigger(context.name, context.payload, context.id);
      if (request)
        await takeTrigger(request, async () => context.octokit as unknown as GitHubClient);
    });
    probot.on("push", async (context) => {
      let moved: BaseMoved | null;
      try {
        moved = parseBaseMoved(context.payload, context.id);
      } catch (error) {
        log.warn({ err: error, delivery: context.id }, "unreadable push payload");
        return;
      }
      if (moved) await takeBaseMoved(moved);
    });

    if (settings.exitOnSignals) {
      const exit = (code: number) => process.exit(code);
      stopOnSignals({
        subscribe: processSignals,
        stop,
        log,
        graceMs: service.shutdownGraceMs,
        stopped: exit,
        exitNow: exit,
      });
    }
  };

  /** Resolves when every delivery seen so far is stored and every due job has run. */
  const idle = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    await queue?.onIdle();
  };

  /**
   * Stops taking jobs; running ones get the grace period (default
   * PATCHWRIGHT_SHUTDOWN_GRACE_SECONDS) to finish, then save a checkpoint,
   * say so on their comment and go back to the queue.
   */
  const stop = async (graceMs = service.shutdownGraceMs): Promise<void> => {
    if (scheduler) clearInterval(scheduler);
    redelivery?.stop();
    await worker?.stop(graceMs);
    // Deliveries being stored right now are answered before the store closes.
    await Promise.allSettled([...inFlight]);
    await queue?.close();
    await closeClients();
  };

  return { app, idle, stop };
}

/**
 * The job pages on Probot's own server, beside the webhooks. Probot without
 * a server (tests that load the App with `probot.load`) has nowhere to
 * mount them: nothing is served then.
 */
function mountPages(
  options: ApplicationFunctionOptions | undefined,
  handler: ReturnType<typeof createPagesHandler>,
  log: Probot["log"],
): void {
  if (!options?.addHandler) return;
  try {
    options.addHandler(handler);
  } catch (error) {
    log.debug({ err: error }, "no server to serve the job pages on");
  }
}

/**
 * The App of `npm start` (probot run ./build/app/index.js). A reason not to
 * start (a setting, the cache folder, Redis) is printed as one line that
 * names it, with no stack unless LOG_LEVEL=debug, and the process exits 1.
 */
function processApp(env: Record<string, string | undefined>) {
  const refuse = (error: unknown): never => {
    process.stderr.write(refusalText(error, { debug: isDebugLevel(env.LOG_LEVEL) }));
    process.exit(1);
  };
  try {
    return createApp({ env, exitOnSignals: true, refuse }).app;
  } catch (error) {
    return refuse(error);
  }
}

export default processApp(process.env);
