import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app/index.js";
import { ServiceEnvError } from "../../src/service/env.js";

describe("createApp's environment", () => {
  it("refuses to take webhooks with no worker anywhere to run their jobs", () => {
    const start = (env: Record<string, string>) => () =>
      createApp({ env: { HOME: "/home/bot", PATCHWRIGHT_WORKER: "off", ...env } });
    expect(start({})).toThrow(ServiceEnvError);
    expect(start({})).toThrow(/PATCHWRIGHT_WORKER=off needs REDIS_URL/);
    // With Redis, `patchwright worker` processes run them.
    expect(start({ REDIS_URL: "redis://127.0.0.1:1" })).not.toThrow();
  });
});
