import * as z from "../zod.js";
import { durationSchema } from "./duration.js";

/**
 * The settings of the jobs that keep pull requests mergeable: fixing failed
 * CI, bringing a branch up to date with its base, and how the bot's commits
 * reach GitHub. Kept apart from schema.ts so each feature's keys live in one place.
 */

const bool = () => z.boolean({ error: "expected true or false" });
const attempts = () =>
  z._default(
    z
      .wholeNumber(1, "expected a whole number of attempts, 1 or more")
      .check(z.lte(10, { error: "expected at most 10 attempts" })),
    2,
  );

export const ciFixSchema = z.strictObject({
  /** false: failed CI on the bot's pull requests is left alone (`@agent fix CI` still works). */
  enabled: z._default(bool(), true),
  /** Fix attempts per pull request; each one is a job that pushes at most one round of commits. */
  max_attempts: attempts(),
  /** How long to wait for the re-run of failed jobs (the flaky check) before fixing anyway. */
  rerun_wait: z._default(durationSchema, 30 * 60),
});

/**
 * Other bots' dependency pull requests (Dependabot's, Renovate's) that
 * patchwright fixes when their CI fails. Off unless listed: pushing to such
 * a branch makes its bot stop rebasing it.
 */
export const tendBotPrsSchema = z.strictObject({
  /** Their logins as GitHub shows them ("dependabot[bot]"). */
  bots: z
    .array(z.string().check(z.trim(), z.minLength(1, { error: "expected a bot's login" })), {
      error: 'expected a list of logins, such as ["dependabot[bot]", "renovate[bot]"]',
    })
    .check(z.minLength(1, { error: "expected at least one bot's login" })),
  /** Fix attempts per pull request. */
  max_attempts: attempts(),
});

export const upkeepFileShape = {
  ci_fix: z.prefault(ciFixSchema, {}),
  tend_bot_prs: z.optional(tendBotPrsSchema),
  /** How a branch that fell behind its base is brought up to date. */
  update_strategy: z._default(
    z.enum(["merge", "rebase"], { error: 'expected "merge" or "rebase"' }),
    "merge",
  ),
  /** Commits recreated through the Git Data API, so GitHub signs them for the App (Verified). */
  signed_commits: z._default(bool(), false),
};

export interface UpkeepConfig {
  ciFix: { enabled: boolean; maxAttempts: number; rerunWaitSeconds: number };
  /** Absent: other bots' pull requests are left alone. */
  tendBotPrs?: TendBotPrs | undefined;
  updateStrategy: "merge" | "rebase";
  signedCommits: boolean;
}

export interface TendBotPrs {
  bots: string[];
  maxAttempts: number;
}

export function toUpkeepConfig(file: {
  ci_fix: z.output<typeof ciFixSchema>;
  tend_bot_prs?: z.output<typeof tendBotPrsSchema> | undefined;
  update_strategy: "merge" | "rebase";
  signed_commits: boolean;
}): UpkeepConfig {
  return {
    ciFix: {
      enabled: file.ci_fix.enabled,
      maxAttempts: file.ci_fix.max_attempts,
      rerunWaitSeconds: file.ci_fix.rerun_wait,
    },
    ...(file.tend_bot_prs
      ? {
          tendBotPrs: {
            bots: file.tend_bot_prs.bots,
            maxAttempts: file.tend_bot_prs.max_attempts,
          },
        }
      : {}),
    updateStrategy: file.update_strategy,
    signedCommits: file.signed_commits,
  };
}
