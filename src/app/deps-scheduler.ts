import type { DepsSchedule } from "../deps/config.js";
import { isDepsRunDue } from "../deps/plan/schedule.js";
import type { ScheduledRepository } from "../requests/scheduled-repository.js";
import type { ServiceQueue } from "../service/job-kinds/inputs.js";

export type { ScheduledRepository };

export type EnabledSchedule = Extract<DepsSchedule, { enabled: true }>;

export interface DepsSchedulerDeps {
  listRepositories(): Promise<ScheduledRepository[]>;
  /** The repository's `deps:` schedule, read from its default branch. */
  scheduleOf(repository: ScheduledRepository): Promise<DepsSchedule>;
  queue: Pick<ServiceQueue, "submit">;
  clock: { now(): number };
  /** How long repository lists and schedules are reused before they are read again. */
  refreshMs?: number;
  /**
   * How often each repository with a `deps:` section gets a security-only
   * run (advisories are not on a schedule); the first comes on the first
   * tick that sees the repository. Unset: no security runs between schedules.
   */
  securityEveryMs?: number;
  onError?: (error: unknown, repository?: ScheduledRepository) => void;
}

interface Known {
  repository: ScheduledRepository;
  schedule: DepsSchedule;
}

const DEFAULT_REFRESH_MS = 15 * 60_000;

/**
 * The App's own clock for dependency bumps: on each tick, every repository
 * whose cron schedule fired since its last run gets one job, queued under a
 * per-repository key so runs of one repository never overlap. Repositories
 * and their config are re-read every `refreshMs`, not every tick, to keep
 * API use flat. A repository is first seen without running, so a restart
 * does not fire every schedule that passed while the App was down.
 */
export function createDepsScheduler(deps: DepsSchedulerDeps) {
  const refreshMs = deps.refreshMs ?? DEFAULT_REFRESH_MS;
  const onError = deps.onError ?? (() => {});
  const lastRun = new Map<string, number>();
  const lastSecurity = new Map<string, number>();
  let known: Known[] = [];
  let refreshedAt = Number.NEGATIVE_INFINITY;

  const refresh = async (now: number): Promise<void> => {
    if (now - refreshedAt < refreshMs) return;
    refreshedAt = now;
    const repositories = await deps.listRepositories();
    known = await Promise.all(
      repositories.map(async (repository) => ({
        repository,
        schedule: await deps.scheduleOf(repository).catch((error): DepsSchedule => {
          onError(error, repository);
          return { enabled: false, reason: "could not read the config" };
        }),
      })),
    );
  };

  const tick = async (): Promise<string[]> => {
    const now = deps.clock.now();
    await refresh(now);
    const started: string[] = [];
    for (const { repository, schedule } of known) {
      if (!schedule.enabled) continue;
      const key = `deps:${repository.owner}/${repository.repo}`.toLowerCase();
      const since = lastRun.get(key);
      lastRun.set(key, since ?? now);
      // Named by the minute it fired: App processes sharing a queue store it once.
      const minute = new Date(Math.floor(now / 60_000) * 60_000).toISOString();
      if (since === undefined || !isDepsRunDue(schedule.schedule, new Date(since), new Date(now))) {
        const checked = lastSecurity.get(key);
        if (deps.securityEveryMs === undefined) continue;
        if (checked !== undefined && now - checked < deps.securityEveryMs) continue;
        lastSecurity.set(key, now);
        const queued = await deps.queue.submit({
          kind: "deps",
          key,
          deliveryId: `${key}#security@${minute}`,
          installationId: repository.installationId,
          input: { ...repository, securityOnly: true },
        });
        if (queued.status !== "duplicate") started.push(`${key}#security`);
        continue;
      }
      lastRun.set(key, now);
      // A full run looks for security fixes too.
      lastSecurity.set(key, now);
      const queued = await deps.queue.submit({
        kind: "deps",
        key,
        deliveryId: `${key}@${minute}`,
        installationId: repository.installationId,
        input: repository,
      });
      if (queued.status !== "duplicate") started.push(key);
    }
    return started;
  };

  return {
    /** Checks every schedule once; returns the keys of the runs it queued. */
    tick: () =>
      tick().catch((error) => {
        onError(error);
        return [];
      }),
  };
}
