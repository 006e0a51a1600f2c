import { defineConfig } from "vitest/config";
import HeavyFirstSequencer from "./test/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // More workers than cores: the suite mostly waits on git, sandboxes and
    // loopback servers, not on the CPU. Measured on 2 cores (2,209 tests):
    // 3 workers 186 s, 4 workers 172 s.
    maxWorkers: 4,
    globalSetup: ["test/global-setup.ts"],
    sequence: { sequencer: HeavyFirstSequencer },
  },
});
