import { defineConfig } from "vitest/config";
import HeavyFirstSequencer from "./test/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // More workers than cores: much of the suite waits on git, sandboxes and
    // loopback servers. Measured on 2 cores (2,209 tests): 3 workers 186 s,
    // 4 workers 172 s; at 2,803 tests, 4 workers 269 s and 6 workers 273 s
    // (CPU-bound now: more workers only add import time).
    maxWorkers: 4,
    globalSetup: ["test/global-setup.ts"],
    sequence: { sequencer: HeavyFirstSequencer },
  },
});
