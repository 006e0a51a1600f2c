import type { JobRecord } from "./types.js";

/**
 * The next job to start: queued and due, its key not already running, from
 * the installation with the fewest jobs running (so one busy organization
 * cannot take every slot), oldest first. When nothing is due, the time the
 * earliest delayed retry becomes due.
 */
export function pickNext(
  records: readonly JobRecord[],
  running: readonly JobRecord[],
  now: number,
): { job?: JobRecord; dueAt?: number } {
  const busyKeys = new Set(running.map((r) => r.key));
  const load = new Map<string, number>();
  for (const r of running) load.set(owner(r), (load.get(owner(r)) ?? 0) + 1);
  let best: JobRecord | undefined;
  let dueAt: number | undefined;
  for (const record of records) {
    if (record.state !== "queued" || busyKeys.has(record.key)) continue;
    const notBefore = record.notBefore ?? 0;
    if (notBefore > now) {
      dueAt = dueAt === undefined ? notBefore : Math.min(dueAt, notBefore);
      continue;
    }
    if (!best || before(record, best, load)) best = record;
  }
  return best ? { job: best } : dueAt === undefined ? {} : { dueAt };
}

function owner(record: JobRecord): string {
  return String(record.installationId ?? "-");
}

function before(a: JobRecord, b: JobRecord, load: Map<string, number>): boolean {
  const la = load.get(owner(a)) ?? 0;
  const lb = load.get(owner(b)) ?? 0;
  if (la !== lb) return la < lb;
  return a.createdAt < b.createdAt;
}
