/**
 * Work that can wait for the end of a burst: `fn` runs once nothing has
 * touched the timer for `quietMs`, and never later than `maxWaitMs` after
 * the first touch since it last ran. The embedded queue writes its record
 * files (disk-store.ts) and new logs' first lines (disk-event-log.ts) so,
 * after the answers to a burst of deliveries rather than between them.
 * Unreferenced: a pending run never keeps the process alive; its owner's
 * close does the work instead.
 */
export function quietTimer(
  fn: () => void,
  quietMs = QUIET_MS,
  maxWaitMs = MAX_WAIT_MS,
): { touch(): void; stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let since: number | undefined;
  return {
    touch() {
      const now = Date.now();
      since ??= now;
      clearTimeout(timer);
      const wait = Math.max(0, Math.min(quietMs, since + maxWaitMs - now));
      timer = setTimeout(() => {
        timer = undefined;
        since = undefined;
        fn();
      }, wait);
      timer.unref?.();
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
      since = undefined;
    },
  };
}

/** Runs this long after the last touch... */
const QUIET_MS = 200;
/** ...and no later than this after the first one waiting. */
const MAX_WAIT_MS = 2_000;
