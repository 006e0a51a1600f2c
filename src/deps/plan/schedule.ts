import { Cron } from "croner";
import { errorMessage } from "../../error-message.js";

/**
 * Cron schedules for dependency runs: five fields (minute hour day month
 * weekday), in UTC. The minute must be fixed so a typo such as `* 6 * * 1`
 * cannot start sixty runs an hour.
 */

export const DEFAULT_DEPS_SCHEDULE = "0 6 * * 1";

/** Why the expression is not a usable schedule, or null when it is. */
export function cronProblem(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) {
    return `expected five cron fields (minute hour day month weekday), got ${fields.length}`;
  }
  if (!/^\d{1,2}$/.test(fields[0] ?? "")) {
    return 'expected a fixed minute such as "0 6 * * 1", so runs happen at most once an hour';
  }
  try {
    new Cron(expression, { paused: true, timezone: "UTC" });
    return null;
  } catch (error) {
    return `not a valid cron expression: ${errorMessage(error)}`;
  }
}

/** The first run strictly after `after`, or null when the schedule never fires again. */
export function nextDepsRun(expression: string, after: Date): Date | null {
  return new Cron(expression, { paused: true, timezone: "UTC" }).nextRun(after);
}

/**
 * Whether a run is due at `now` given when the last one started: true when
 * the schedule fired between the two (for a repository that never ran, pass
 * when it was first seen as `lastRun`).
 */
export function isDepsRunDue(expression: string, lastRun: Date, now: Date): boolean {
  const next = nextDepsRun(expression, lastRun);
  return next !== null && next.getTime() <= now.getTime();
}
