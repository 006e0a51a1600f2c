import { homedir } from "node:os";
import { join } from "node:path";
import type { ApplicationFunctionOptions, Context, Probot } from "probot";
import type { Model } from "../agent/model.js";
import { createRedactor } from "../agent/redact.js";
import { cleanStaleWorkspaces, pruneCache } from "../git/cache.js";
import type { GitHubClient } from "../github/octokit.js";
import { admitRequest } from "../job/admit.js";
import { renderQueuedAnswer } from "../job/answers.js";
import { anthropicModelFactory, createRequestStatus } from "../job/job-deps.js";
import { runJob } from "../job/run-job.js";
import { type JobRequest, jobKey, triggerKey } from "../requests/request.js";
import { parseTrigger } from "../requests/triggers.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import { chooseSandbox } from "../sandbox/select.js";
import { secretsInEnv } from "../secrets/patterns.js";
import { createAppDepsScheduler } from "./deps-wiring.js";
import { guardMalformedPayloads } from "./malformed.js";
import { createInProcessQueue, type JobQueue } from "./queue.js";
import { createSeenSet } from "./seen-set.js";

export const TRIGGER_EVENTS = [
  "issue_comment.created",
  "pull_request_review_comment.created",
  "pull_request_review.submitted",
  "issues.labeled",
] as const;

export interface AppSettings {
  env: Record<string, string | undefined>;
  clock?: { now(): number };
  queue?: JobQueue;
  createModel?: (modelId: string) => Model;
  /** Where repository code runs; default: bubblewrap, or a refusal naming the fix (see select.ts). */
  sandbox?: SandboxLauncher;
}

const UNSANDBOXED = /^(1|true|yes)$/i;
/** Deliveries and triggering objects remembered for duplicate detection. */
const DEDUPE_WINDOW = 5000;
const STALE_WORKSPACE_MS = 60 * 60_000;
const DEFAULT_CACHE_BYTES = 10 * 1024 ** 3;
const SCHEDULER_TICK_MS = 60_000;

/**
 * Builds the Probot app. Webhooks are answered as soon as the request is
 * parsed: admission (config, phrase, permission, 👀) and the job itself run
 * from the queue's side of things, and `idle()` lets tests and shutdown wait.
 */
export function createApp(settings: AppSettings) {
  const { env } = settings;
  const clock = settings.clock ?? Date;
  const cacheDir =
    env.PATCHWRIGHT_CACHE_DIR || join(env.HOME || homedir(), ".cache", "patchwright");
  const cacheBytes = Number(env.PATCHWRIGHT_CACHE_BYTES) || DEFAULT_CACHE_BYTES;
  const inFlight = new Set<Promise<void>>();
  const createModel =
    settings.createModel ??
    anthropicModelFactory({
      apiKey: env.ANTHROPIC_API_KEY,
      baseURL: env.ANTHROPIC_BASE_URL,
      missingKey: "ANTHROPIC_API_KEY is not set on the server running patchwright",
    });

  const app = (probot: Probot, _options?: ApplicationFunctionOptions): void => {
    const log = probot.log;
    const sandbox: Promise<SandboxLauncher> = settings.sandbox
      ? Promise.resolve(settings.sandbox)
      : chooseSandbox({
          mode: "service",
          optOut: UNSANDBOXED.test(env.PATCHWRIGHT_UNSANDBOXED ?? ""),
          optOutName: "PATCHWRIGHT_UNSANDBOXED=1",
          path: env.PATH ?? "",
          home: env.HOME || homedir(),
          // The cache holds every repository's mirrors; the App's folder, its .env.
          hidden: [cacheDir, process.cwd()],
        }).then((choice) => {
          if (choice.warning) log.warn(choice.warning);
          return choice.launcher;
        });
    const queue =
      settings.queue ??
      createInProcessQueue({
        concurrency: Number(env.PATCHWRIGHT_CONCURRENCY) || 2,
        onError: (error, job) => log.error({ err: error, key: job.key }, "job failed"),
      });
    let botLogin: Promise<string> | undefined;
    const getBotLogin = (): Promise<string> => {
      botLogin ??= env.PATCHWRIGHT_BOT_LOGIN
        ? Promise.resolve(env.PATCHWRIGHT_BOT_LOGIN)
        : probot
            .auth()
            .then(
              async (octokit) => `${(await octokit.rest.apps.getAuthenticated()).data?.slug}[bot]`,
            );
      return botLogin;
    };
    settings.queue = queue;

    // Scheduled dependency bumps: every minute, each repository whose
    // `deps:` cron fired gets one run (PATCHWRIGHT_DEPS_SCHEDULER=off disables).
    if (env.PATCHWRIGHT_DEPS_SCHEDULER !== "off") {
      const scheduler = createAppDepsScheduler({
        probot,
        queue,
        env,
        cacheDir,
        sandbox: () => sandbox,
        clock,
        createModel,
      });
      setInterval(() => void scheduler.tick(), SCHEDULER_TICK_MS).unref();
    }

    cleanStaleWorkspaces(cacheDir, { olderThanMs: STALE_WORKSPACE_MS, env }).then(
      ({ removed }) => removed.length > 0 && log.info({ removed }, "removed stale workspaces"),
      (error) => log.warn({ err: error }, "could not clean stale workspaces"),
    );

    const handle = async (context: Context, request: JobRequest): Promise<void> => {
      const octokit = context.octokit as unknown as GitHubClient;
      // Asked of the App-level client: it carries the configured API base URL
      // (GHE_HOST), which the installation client's own auth call does not.
      const gitToken = async () => {
        if (request.installationId === undefined)
          throw new Error("the webhook carries no installation id");
        const appOctokit = await probot.auth();
        const { data } = await appOctokit.rest.apps.createInstallationAccessToken({
          installation_id: request.installationId,
        });
        return data.token;
      };
      // The status comment's redactor knows the process's secrets and every
      // token shape; the job's also knows the exact token minted for it.
      const secrets = secretsInEnv(env).map((secret) => secret.value);
      const redact = createRedactor(secrets);
      const status = createRequestStatus(
        {
          octokit,
          clock,
          redact,
          onError: (error, action) => log.warn({ err: error, action }, "status update failed"),
        },
        request,
      );
      const admission = await admitRequest(
        { octokit, botLogin: await getBotLogin() },
        request,
        status,
      );
      if (!admission.admitted) {
        log.info({ reason: admission.reason, key: jobKey(request) }, "request not admitted");
        return;
      }
      const botLogin = await getBotLogin();
      const queued = await queue.enqueue({
        key: jobKey(request),
        deliveryId: request.deliveryId,
        run: async () => {
          // Minted when the job starts, once: only admitted requests get a
          // token, and a job that waited in the queue still gets a fresh one.
          const token = await gitToken();
          const deps = {
            octokit,
            gitToken: async () => token,
            createModel,
            cacheDir,
            sandbox: await sandbox,
            secrets: [...secretsInEnv(env), { name: "the installation token", value: token }],
            envSource: env,
            clock,
            botLogin,
            redact: createRedactor([...secrets, token]),
          };
          const outcome = await runJob(deps, request, admission.config, status);
          log.info({ key: jobKey(request), conclusion: outcome.conclusion }, "job finished");
          await pruneCache(cacheDir, { maxBytes: cacheBytes }).catch((error) =>
            log.warn({ err: error }, "could not prune the cache"),
          );
        },
      });
      if (queued.status === "queued") await status.reply(renderQueuedAnswer(queued.waitingAhead));
    };

    const seen = createSeenSet(DEDUPE_WINDOW);
    guardMalformedPayloads(probot, parseTrigger);
    probot.on([...TRIGGER_EVENTS], async (context) => {
      const request = parseTrigger(context.name, context.payload, context.id);
      if (!request) return;
      // Sent to the App itself (a test delivery, say), not for an installation: nothing to act as.
      if (request.installationId === undefined) {
        log.info({ event: context.name, delivery: context.id }, "delivery without an installation");
        return;
      }
      // A repeated delivery, or the same comment delivered again under a new id.
      if (!seen.firstSighting([request.deliveryId, triggerKey(request)])) {
        log.info({ key: jobKey(request), delivery: request.deliveryId }, "duplicate delivery");
        return;
      }
      // Not awaited: GitHub gets its answer now; the work goes on behind it.
      const work = handle(context as Context, request).catch((error) =>
        log.error({ err: error, key: jobKey(request) }, "could not handle the request"),
      );
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    });
  };

  /** Resolves when every request seen so far has been admitted (or not) and every job has run. */
  const idle = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
    await settings.queue?.onIdle();
  };

  return { app, idle };
}

export default createApp({ env: process.env }).app;
