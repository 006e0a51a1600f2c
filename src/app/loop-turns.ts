/**
 * Lets at most `perTurn` callers through per turn of the event loop; the
 * rest wait for the next turns, in the order they came.
 *
 * Why: libuv accepts one connection per turn of the loop (since
 * libuv/libuv#3696, 2022). When a burst opens fifty connections at once
 * and each turn parses every delivery that is ready, the turns get long
 * and the last connections wait hundreds of milliseconds just to be
 * accepted. Short turns keep accepting.
 *
 * At the start of a burst even a few deliveries a turn are too many: the
 * first connections' deliveries fill each turn while the others wait in
 * the kernel, one accepted per turn. Measured with the queue bench's burst
 * (50 new connections, then 450 more deliveries on them), the slowest
 * answers were all of that first wave, accepted 90 to 140 ms after their
 * request was sent and answered 10 to 60 ms after that. So when a
 * connection opens while nothing waits (`opened`), the turns hold every
 * caller back for as long as new connections keep coming, up to `holdMs`:
 * each such turn only accepts and reads, and the wave is then handled
 * together. A turn without a new connection, or the time up, ends the
 * hold; the next one starts only once nothing waits again, so a stream of
 * new connections is never held for more than `holdMs` at a time.
 */
export interface LoopTurns {
  /** Resolves on a later turn, in order. */
  next(): Promise<void>;
  /** A delivery came on a connection not seen before: more may be waiting to be accepted. */
  opened(): void;
}

export function createLoopTurns(
  perTurn: number,
  options: { holdMs?: number; now?: () => number } = {},
): LoopTurns {
  const holdMs = options.holdMs ?? 0;
  const now = options.now ?? (() => performance.now());
  const waiting: Array<() => void> = [];
  let scheduled = false;
  /** When the current hold ends at the latest; undefined when not holding. */
  let holdUntil: number | undefined;
  /** Whether a connection opened since the last turn. */
  let fresh = false;
  const release = () => {
    if (holdUntil !== undefined && fresh && now() < holdUntil) {
      fresh = false;
      setImmediate(release);
      return;
    }
    holdUntil = undefined;
    fresh = false;
    for (let i = 0; i < perTurn && waiting.length > 0; i++) waiting.shift()?.();
    // Set from within the check phase, the next release is in the next turn.
    if (waiting.length > 0) setImmediate(release);
    else scheduled = false;
  };
  return {
    next: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (!scheduled) {
          scheduled = true;
          setImmediate(release);
        }
      }),
    opened() {
      fresh = true;
      if (holdMs <= 0 || waiting.length > 0) return;
      // A hold no turn has ended yet (its delivery never came to wait) is over by its time.
      const at = now();
      if (holdUntil === undefined || at >= holdUntil) holdUntil = at + holdMs;
    },
  };
}
