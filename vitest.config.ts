import { defineConfig } from "vitest/config";
import HeavyFirstSequencer from "./test/sequencer.js";

/**
 * The files that start processes that must not outlive them, registries and
 * package managers, and change process-wide state as they do, each get a
 * fresh module graph. The deps files listed start verdaccio or a package
 * manager; the rest of deps/ is unit tests. test/app/ was here too, but
 * shared-file-setup.ts now gives each file nock's state as a fresh worker
 * would, and none of those files stubs the environment or the timers: in
 * the shared project they took 90 s instead of 218 s, and 97 s of CPU
 * instead of 132 s (the 14 files imported the App 14 times).
 */
const ISOLATED = [
  "test/e2e/**/*.test.ts",
  "test/deps/run-deps-job.test.ts",
  "test/deps/fix/**/*.test.ts",
  "test/deps/managers/{bun,lockfile-only-managers,package-managers}.test.ts",
  "test/deps/plan/{plan,plan-packuments}.test.ts",
];

export default defineConfig({
  test: {
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
    projects: [
      { extends: true, test: { name: "isolated", include: ISOLATED } },
      {
        extends: true,
        test: {
          // The rest share one module graph per worker instead of evaluating
          // src/ and its libraries again for each of ~200 files. Measured on
          // 2 cores: agent/config/thread/report/requests/kernel 90 s → 52 s,
          // github/pages/queue/redteam/sandbox/secrets/service 100 s → 80 s;
          // the whole suite 1,539 → ~1,200 s of CPU (−21%).
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: ISOLATED,
          isolate: false,
          setupFiles: ["test/shared-file-setup.ts"],
        },
      },
    ],
  },
});
