import { hkdfSync } from "node:crypto";
import { ServiceEnvError } from "../service/env.js";
import * as z from "../zod.js";

/**
 * The job pages' settings, parsed once at the App's entry from the same
 * environment as service/env.ts. The pages are on only with the App's OAuth
 * client (Probot's manifest flow writes GITHUB_CLIENT_ID and
 * GITHUB_CLIENT_SECRET) and PATCHWRIGHT_PUBLIC_URL (GitHub sends people back
 * to its /jobs/callback): with any of them missing they stay off and say
 * which, never open to the world.
 */

export interface PagesSettings {
  clientId: string;
  clientSecret: string;
  /** Signs the cookies and keys the token encryption (auth/session.ts). */
  sessionSecret: Buffer;
  /** Logins (lower case) who see and cancel every job. */
  admins: ReadonlySet<string>;
  /** Where people reach the App, without a trailing slash: https://bot.example.com */
  publicUrl: string;
  /** The REST API root (https://api.github.com, or GHE's /api/v3); OAuth lives beside it. */
  apiBaseUrl: string;
}

export type PagesConfig = { on: true; settings: PagesSettings } | { on: false; missing: string[] };

const text = z.pipe(
  z.optional(z.string()),
  z.transform((value) => (value?.trim() ? value.trim() : undefined)),
);

const publicUrl = text.check(
  z.superRefine((value, ctx) => {
    if (value === undefined) return;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {}
    if (url && /^https?:$/.test(url.protocol) && !url.search && !url.hash) return;
    ctx.addIssue({
      code: "custom",
      message: `expected an http(s) URL with no query, got "${value}"`,
    });
  }),
);

const sessionSecret = text.check(
  z.superRefine((value, ctx) => {
    if (value !== undefined && value.length < 32) {
      ctx.addIssue({ code: "custom", message: "expected at least 32 characters" });
    }
  }),
);

const pagesEnvSchema = z.object({
  GITHUB_CLIENT_ID: text,
  GITHUB_CLIENT_SECRET: text,
  WEBHOOK_SECRET: text,
  PATCHWRIGHT_SESSION_SECRET: sessionSecret,
  PATCHWRIGHT_ADMINS: text,
  PATCHWRIGHT_PUBLIC_URL: publicUrl,
});

/** What the pages-off page tells the operator to set. */
export const PAGES_SETTINGS = [
  "GITHUB_CLIENT_ID",
  "GITHUB_CLIENT_SECRET",
  "PATCHWRIGHT_PUBLIC_URL",
];

/**
 * `apiBaseUrl`: service/env.ts's (GHE_HOST), undefined on github.com.
 * A malformed value refuses the start, naming it, as service/env.ts does.
 */
export function parsePagesEnv(
  env: Record<string, string | undefined>,
  apiBaseUrl: string | undefined,
): PagesConfig {
  const parsed = pagesEnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ServiceEnvError(`bad environment: ${lines.join("; ")}`);
  }
  const e = parsed.data;
  const missing = PAGES_SETTINGS.filter((name) => !e[name as keyof typeof e]);
  if (!e.GITHUB_CLIENT_ID || !e.GITHUB_CLIENT_SECRET || !e.PATCHWRIGHT_PUBLIC_URL) {
    return { on: false, missing };
  }
  return {
    on: true,
    settings: {
      clientId: e.GITHUB_CLIENT_ID,
      clientSecret: e.GITHUB_CLIENT_SECRET,
      sessionSecret: deriveSessionSecret(
        e.PATCHWRIGHT_SESSION_SECRET,
        e.GITHUB_CLIENT_SECRET,
        e.WEBHOOK_SECRET,
      ),
      admins: new Set(
        (e.PATCHWRIGHT_ADMINS ?? "")
          .split(",")
          .map((login) => login.trim().toLowerCase())
          .filter(Boolean),
      ),
      publicUrl: e.PATCHWRIGHT_PUBLIC_URL.replace(/\/+$/, ""),
      apiBaseUrl: (apiBaseUrl ?? "https://api.github.com").replace(/\/+$/, ""),
    },
  };
}

/**
 * PATCHWRIGHT_SESSION_SECRET when set; else derived (HKDF-SHA256) from the
 * OAuth client secret salted with the webhook secret, both secrets the App
 * already keeps, so sessions survive a restart with nothing more to set.
 * Rotating either secret signs everyone out, which is what a rotation means.
 */
function deriveSessionSecret(
  own: string | undefined,
  clientSecret: string,
  webhookSecret: string | undefined,
): Buffer {
  if (own) return Buffer.from(own, "utf8");
  return Buffer.from(
    hkdfSync("sha256", clientSecret, webhookSecret ?? "", "patchwright pages session", 32),
  );
}

/** A job's page, for links from its comment and pull request; none while the pages are off. */
export function jobPageUrl(config: PagesConfig): ((jobId: string) => string) | undefined {
  if (!config.on) return undefined;
  const root = config.settings.publicUrl;
  return (jobId) => `${root}/jobs/${encodeURIComponent(jobId)}`;
}
