import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Both cores: the default leaves one idle here, and the suite is mostly
    // waiting on git, sandboxes and loopback servers, not on the CPU.
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
  },
});
