/**
 * GitHub does not send a webhook again by itself: a delivery that met the
 * App down (a deploy, a crash, a restart) or answered 5xx (Redis away) is
 * lost unless someone asks for it again. The App asks: shortly after it
 * starts and then every few minutes, it reads its recent deliveries
 * (`GET /app/hook/deliveries`, newest first) and asks again for each one
 * whose every attempt went unanswered or met a 5xx. A delivery keeps its
 * GUID when sent again, so the intake's duplicate check (by delivery id)
 * makes a second success harmless; one asked for `maxAttempts` times is
 * left alone (a payload the App fails on every time is not asked for
 * forever).
 */

export interface Delivery {
  id: number;
  guid: string;
  delivered_at: string;
  status_code: number;
  event: string;
}

/** The two App endpoints, as the App's own (JWT) client calls them. */
export interface DeliveriesClient {
  /** Pages of deliveries, newest first. */
  pages(): AsyncIterable<Delivery[]>;
  redeliver(id: number): Promise<void>;
}

export interface SweepOptions {
  now: number;
  /** Deliveries older than this are not looked at (GitHub keeps three days). */
  lookBackMs: number;
  /** The events the App acts on; deliveries of others are left alone. */
  events: ReadonlySet<string>;
  /** How many times a failed delivery is asked for again, at most. */
  maxAttempts: number;
}

export async function redeliverFailed(
  client: DeliveriesClient,
  options: SweepOptions,
): Promise<{ asked: Delivery[] }> {
  const cutoff = options.now - options.lookBackMs;
  const byGuid = new Map<string, { settled: boolean; failures: number; latest: Delivery }>();
  pages: for await (const page of client.pages()) {
    for (const delivery of page) {
      if (Date.parse(delivery.delivered_at) < cutoff) break pages;
      if (!options.events.has(delivery.event)) continue;
      const seen = byGuid.get(delivery.guid) ?? { settled: false, failures: 0, latest: delivery };
      // Only what never got an answer (0: refused, timed out) or got a 5xx is
      // worth another try; a 4xx is the App refusing the delivery itself (a
      // signature made with another secret), which a copy meets again.
      const settled = delivery.status_code < 500 && delivery.status_code !== 0;
      byGuid.set(delivery.guid, {
        settled: seen.settled || settled,
        failures: seen.failures + (settled ? 0 : 1),
        latest: seen.latest,
      });
    }
  }
  const asked: Delivery[] = [];
  for (const { settled, failures, latest } of byGuid.values()) {
    // The first delivery failed too: one failure more than the attempts asked for.
    if (settled || failures > options.maxAttempts) continue;
    await client.redeliver(latest.id);
    asked.push(latest);
  }
  return { asked };
}
