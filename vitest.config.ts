import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import HeavyFirstSequencer from "./test/sequencer.js";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // One worker more than cores: some of the suite waits on git, sandboxes
    // and loopback servers, but most of it is CPU (both cores stay busy), and
    // each worker beyond that adds its own import of src/ and its libraries
    // and more processes contending for the cores. Measured on the 2-core VM
    // with `npm run bench -- suite` (2,862 tests; the VM's speed drifts, so
    // runs of one setting differ by up to a seventh): 4 workers 427 and 414 s
    // wall, 841 and 819 s of CPU; 3 workers 351, 394 (a clean clone) and
    // 404 s, 681, 765 and 787 s of CPU; 2 workers 358 s and 624 s, a core
    // idle an eighth of the time. At 2,856 tests, 6 workers took 444 s
    // against 4 workers' 399 s.
    maxWorkers: availableParallelism() + 1,
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
