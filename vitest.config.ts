import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import HeavyFirstSequencer from "./test/sequencer.js";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Two workers more than cores: a worker often waits (on git, sandboxes,
    // package managers and loopback servers it started), and one more worker
    // fills those waits; each further one imports src/ and its libraries
    // again and adds contention. Measured on the 2-core VM with the run's
    // files in tmpfs and the tests' git through helpers (3,267 tests,
    // /proc/stat): 3 workers 228.2, 227.8 (a clean clone) and 222.9 s, 33-39 s
    // of the cores idle; 4 workers 216.0 and 209.2 s, 13 s idle, the same CPU;
    // 5 workers 222.6 s, 20 s more CPU. Before those two changes (2,862
    // tests) one more than cores was best: 4 workers 427 and 414 s against
    // 3 workers' 351-404 s, 2 workers 358 s.
    maxWorkers: availableParallelism() + 2,
    globalSetup: ["test/global-setup.ts"],
    sequence: { sequencer: HeavyFirstSequencer },
    // The files share one module graph per worker instead of evaluating src/
    // and its libraries again for each of ~240 files. shared-file-setup.ts
    // gives each file the process-wide state a fresh worker would have
    // (nock's interceptor, the network switch); the files that stub the
    // environment or the timers restore them. The App, e2e and deps files
    // (32) had a graph each until the measures on the 2-core VM: test/app
    // alone 218 s and 132 s of CPU, shared 90 s and 97 s; the suite with the
    // other 18 still apart 406 s and 516 s of CPU, with none 399 s and 495 s.
    isolate: false,
    setupFiles: [
      "test/shared-file-setup.ts",
      // Per-file CPU profiles for `BENCH_SUITE_PROFILE=1 npm run bench -- suite` (bench/suite.ts).
      ...(process.env.PW_SUITE_PROFILE ? ["bench/suite-profile-setup.ts"] : []),
    ],
  },
});
