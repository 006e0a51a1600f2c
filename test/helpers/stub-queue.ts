import type { ServiceQueue } from "../../src/service/job-kinds/inputs.js";

/** A queue that holds nothing and runs nothing, with the methods a test cares about replaced. */
export function stubQueue(overrides: Partial<ServiceQueue> = {}): ServiceQueue {
  return {
    submit: async () => ({ status: "stored", id: "x" }) as never,
    startWorker: () => ({ stop: async () => {} }),
    get: async () => undefined,
    list: async () => [],
    queuedIds: async () => [],
    cancel: async () => "not_found",
    retry: async () => "not_found",
    log: {
      append: async () => {},
      read: async () => ({ entries: [], next: 0 }),
      subscribe: () => () => {},
      close: async () => {},
    },
    onIdle: async () => {},
    close: async () => {},
    ...overrides,
  };
}
