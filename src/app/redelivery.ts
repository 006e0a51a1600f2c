import type { AppClient } from "../github/client.js";
import { type DeliveriesClient, type Delivery, redeliverFailed } from "../service/redeliver.js";

/**
 * The App's sweep for deliveries GitHub could not make (service/redeliver.ts):
 * the first a while after the start, once the server listens (GitHub sends
 * what is asked for again within seconds, to the App's webhook URL), then
 * every few minutes, never two at once. Failures are logged and tried again
 * next time: a GitHub Enterprise Server without the deliveries API just
 * logs once at debug level each sweep.
 */

export interface RedeliverySettings {
  /** Default 30 s. */
  firstAfterMs?: number;
  /** Default 10 minutes. */
  everyMs?: number;
}

const LOOK_BACK_MS = 24 * 60 * 60_000;
const MAX_ATTEMPTS = 3;

export function startRedeliverySweep(options: {
  /** Built at the first sweep: an App loaded without its id (a test's middleware) never needs it. */
  app: () => AppClient;
  events: ReadonlySet<string>;
  clock: { now(): number };
  log: {
    info(fields: object, message: string): void;
    debug(fields: object, message: string): void;
  };
  settings?: RedeliverySettings | undefined;
}): { stop(): void } {
  const { firstAfterMs = 30_000, everyMs = 10 * 60_000 } = options.settings ?? {};
  let running = false;
  let client: AppClient | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const sweep = async () => {
    if (running || stopped) return;
    running = true;
    try {
      client ??= options.app();
      const { asked } = await redeliverFailed(deliveriesOf(client), {
        now: options.clock.now(),
        lookBackMs: LOOK_BACK_MS,
        events: options.events,
        maxAttempts: MAX_ATTEMPTS,
      });
      for (const delivery of asked)
        options.log.info(
          { delivery: delivery.guid, event: delivery.event },
          "asked GitHub to deliver a failed webhook again",
        );
    } catch (error) {
      options.log.debug({ err: error }, "could not read the App's webhook deliveries");
    } finally {
      running = false;
    }
  };
  const next = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => void sweep().finally(() => next(everyMs)), ms);
    timer.unref();
  };
  next(firstAfterMs);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

function deliveriesOf(app: AppClient): DeliveriesClient {
  return {
    async *pages() {
      const pages = app.paginate.iterator(app.rest.apps.listWebhookDeliveries, { per_page: 100 });
      for await (const { data } of pages) yield data as Delivery[];
    },
    async redeliver(id) {
      await app.rest.apps.redeliverWebhookDelivery({ delivery_id: id });
    },
  };
}
