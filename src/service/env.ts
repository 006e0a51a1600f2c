import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { OperatorCeilings } from "../config/ceilings.js";
import { errorMessage } from "../error-message.js";
import * as z from "../zod.js";
import { failTransform } from "../zod.js";
import { ceilingEnvFields, ceilingsOf, SERVICE_DEFAULTS } from "./ceilings.js";
import { StartupRefusal } from "./startup-refusal.js";

/**
 * The environment of the server processes (`npm start` and `patchwright
 * worker`), parsed once at their entry. Probot's own names where Probot has
 * one; ours start with PATCHWRIGHT_. `.env.example` lists them all.
 */

const flag = (fallback: boolean) =>
  z.pipe(
    z.optional(z.string()),
    z.transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      if (/^(1|true|yes|on)$/i.test(value)) return true;
      if (/^(0|false|no|off)$/i.test(value)) return false;
      return failTransform(ctx, `expected on or off, got "${value}"`);
    }),
  );

const positiveInt = (fallback: number) =>
  z.pipe(
    z.optional(z.string()),
    z.transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      const number = Number(value);
      if (Number.isInteger(number) && number > 0) return number;
      return failTransform(ctx, `expected a whole number above 0, got "${value}"`);
    }),
  );

const optionalText = z.pipe(
  z.optional(z.string()),
  z.transform((value) => (value?.trim() ? value.trim() : undefined)),
);

/** A URL as it may be shown: its password (and a user with one) masked. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return url;
  }
}

// ioredis also takes `host:port` and a socket path; a scheme must be Redis's own.
const redisUrl = optionalText.check(
  z.superRefine((value, ctx) => {
    if (!value?.includes("://")) return;
    let parsed: URL | undefined;
    try {
      parsed = new URL(value);
    } catch {}
    if (parsed && /^rediss?:$/.test(parsed.protocol) && parsed.hostname) return;
    ctx.addIssue({
      code: "custom",
      message: `expected redis://[user:password@]host:port[/db] (or rediss:// for TLS), got "${withoutCredentials(value)}"`,
    });
  }),
);

const serviceEnvSchema = z.object({
  APP_ID: optionalText,
  PRIVATE_KEY: optionalText,
  PRIVATE_KEY_PATH: optionalText,
  WEBHOOK_SECRET: optionalText,
  GHE_HOST: optionalText,
  GHE_PROTOCOL: optionalText,
  ANTHROPIC_API_KEY: optionalText,
  ANTHROPIC_BASE_URL: optionalText,
  REDIS_URL: redisUrl,
  HOME: optionalText,
  PATH: optionalText,
  PATCHWRIGHT_CACHE_DIR: optionalText,
  PATCHWRIGHT_CACHE_BYTES: positiveInt(10 * 1024 ** 3),
  PATCHWRIGHT_CONCURRENCY: positiveInt(2),
  PATCHWRIGHT_WORKER: flag(true),
  PATCHWRIGHT_SHUTDOWN_GRACE_SECONDS: positiveInt(60),
  PATCHWRIGHT_MAX_ATTEMPTS: positiveInt(3),
  PATCHWRIGHT_JOB_LOCK_SECONDS: positiveInt(30),
  PATCHWRIGHT_UNSANDBOXED: flag(false),
  PATCHWRIGHT_BOT_LOGIN: optionalText,
  PATCHWRIGHT_DEPS_SCHEDULER: flag(true),
  ...ceilingEnvFields,
});

export interface ServiceSettings {
  appId: string | undefined;
  privateKey: string | undefined;
  /** The REST API root for GitHub Enterprise Server; undefined on github.com. */
  apiBaseUrl: string | undefined;
  anthropicApiKey: string | undefined;
  anthropicBaseUrl: string | undefined;
  redisUrl: string | undefined;
  cacheDir: string;
  cacheBytes: number;
  /** Jobs one worker runs at once. */
  concurrency: number;
  /** `npm start` runs a worker in the same process (PATCHWRIGHT_WORKER=off: only the webhooks). */
  inProcessWorker: boolean;
  shutdownGraceMs: number;
  maxAttempts: number;
  /**
   * On Redis: how long a worker's hold on a job lasts without renewal, and
   * how often workers look for jobs whose worker died. A killed worker's
   * job is taken up again within about twice this.
   */
  jobLockMs: number;
  unsandboxed: boolean;
  botLogin: string | undefined;
  depsScheduler: boolean;
  /** What no repository may exceed (service/ceilings.ts). */
  ceilings: OperatorCeilings;
  path: string;
  home: string;
}

/** A setting that is missing or malformed: the process refuses to start, naming it. */
export class ServiceEnvError extends StartupRefusal {
  override name = "ServiceEnvError";
}

export function parseServiceEnv(env: Record<string, string | undefined>): ServiceSettings {
  const parsed = serviceEnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ServiceEnvError(`bad environment: ${lines.join("; ")}`);
  }
  const e = parsed.data;
  const home = e.HOME ?? homedir();
  let privateKey = e.PRIVATE_KEY;
  if (!privateKey && e.PRIVATE_KEY_PATH) {
    try {
      privateKey = readFileSync(e.PRIVATE_KEY_PATH, "utf8");
    } catch (error) {
      throw new ServiceEnvError(
        `bad environment: PRIVATE_KEY_PATH: cannot read ${e.PRIVATE_KEY_PATH} (${errorMessage(error)})`,
      );
    }
  }
  return {
    appId: e.APP_ID,
    // .env files hold the key on one line, with \n for its line breaks.
    privateKey: privateKey?.replace(/\\n/g, "\n"),
    apiBaseUrl: e.GHE_HOST ? `${e.GHE_PROTOCOL ?? "https"}://${e.GHE_HOST}/api/v3` : undefined,
    anthropicApiKey: e.ANTHROPIC_API_KEY,
    anthropicBaseUrl: e.ANTHROPIC_BASE_URL,
    redisUrl: e.REDIS_URL,
    cacheDir: e.PATCHWRIGHT_CACHE_DIR ?? join(home, ".cache", "patchwright"),
    cacheBytes: e.PATCHWRIGHT_CACHE_BYTES,
    concurrency: e.PATCHWRIGHT_CONCURRENCY,
    inProcessWorker: e.PATCHWRIGHT_WORKER,
    shutdownGraceMs: e.PATCHWRIGHT_SHUTDOWN_GRACE_SECONDS * 1000,
    maxAttempts: e.PATCHWRIGHT_MAX_ATTEMPTS,
    jobLockMs: e.PATCHWRIGHT_JOB_LOCK_SECONDS * 1000,
    unsandboxed: e.PATCHWRIGHT_UNSANDBOXED,
    botLogin: e.PATCHWRIGHT_BOT_LOGIN,
    depsScheduler: e.PATCHWRIGHT_DEPS_SCHEDULER,
    ceilings: ceilingsOf(e, SERVICE_DEFAULTS),
    path: e.PATH ?? "",
    home,
  };
}
