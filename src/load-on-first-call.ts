/**
 * A function whose code is loaded at its first call (a dynamic import), for
 * work a job's start need not load: the Action's way to its first model
 * request loads and compiles every module it imports. Concurrent first
 * calls share one load; a failed load fails that call, as the function
 * failing would, and the next call loads again.
 */
export function loadOnFirstCall<Args extends unknown[], Result>(
  load: () => Promise<(...args: Args) => Promise<Result>>,
): (...args: Args) => Promise<Result> {
  let loaded: Promise<(...args: Args) => Promise<Result>> | undefined;
  return async (...args) => {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return (await loaded)(...args);
  };
}
