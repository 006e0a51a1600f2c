import { defineConfig } from "vitest/config";
import HeavyFirstSequencer from "./test/sequencer.js";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // More workers than cores: much of the suite waits on git, sandboxes and
    // loopback servers. Measured on 2 cores (2,209 tests): 3 workers 186 s,
    // 4 workers 172 s; at 2,856 tests, 4 workers 399 s and 6 workers 444 s
    // (each worker imports src/ and its libraries once: more of them only
    // add that, and contention).
    maxWorkers: 4,
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
    setupFiles: ["test/shared-file-setup.ts"],
  },
});
