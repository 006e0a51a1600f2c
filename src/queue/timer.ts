/**
 * Timers the queues and the worker wait on, injected so tests move time by
 * hand. Here, below both the queue and its worker, so neither imports the
 * other for it.
 */
export type SetTimer = (fn: () => void, ms: number) => { cancel(): void };

/** setTimeout, unreferenced: a pending retry or poll must not keep a finished process alive. */
export const realTimer: SetTimer = (fn, ms) => {
  const handle = setTimeout(fn, ms);
  handle.unref();
  return { cancel: () => clearTimeout(handle) };
};
