/**
 * When an installation token is renewed rather than handed out: ten
 * minutes before its end. A token lasts an hour from when it was minted,
 * and @octokit/auth-app keeps one for 59 minutes: taken near the end of
 * that, it would expire in the middle of the git command or the job step
 * it was taken for (a push after a long job, a fetch of a large repository).
 */
const RENEW_BEFORE_MS = 10 * 60_000;

/** Whether a token ending at `expiresAt` (GitHub's ISO `expires_at`) is due for renewal; never for one without an end. */
export function nearsItsEnd(expiresAt: string | undefined, now: number): boolean {
  const ends = expiresAt ? Date.parse(expiresAt) : Number.NaN;
  return ends - now < RENEW_BEFORE_MS;
}
