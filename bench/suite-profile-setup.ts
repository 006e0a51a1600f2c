import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join, relative } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";

/**
 * A setup file for `BENCH_SUITE_PROFILE=1 npm run bench -- suite` only
 * (vitest.config.ts adds it when PW_SUITE_PROFILE names a folder): each
 * test file's CPU profile of its worker's main thread, written when the
 * file ends. `--cpu-prof` cannot do it: vitest ends its workers without
 * letting Node write the profile, and one profile per worker would not say
 * which file the time was for. Setup files run again for each file, so this
 * module's top level runs per file; the inspector session is the worker's.
 */

const dir = process.env.PW_SUITE_PROFILE ?? "";
const file = relative(process.cwd(), expect.getState().testPath ?? "unknown");
const state = globalThis as { patchwrightProfiler?: Session; patchwrightProfiles?: number };

beforeAll(async () => {
  if (!state.patchwrightProfiler) {
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    // 0.5 ms: fine enough for a file's few seconds, light enough to leave its timing alone.
    await session.post("Profiler.setSamplingInterval", { interval: 500 });
    state.patchwrightProfiler = session;
  }
  await state.patchwrightProfiler.post("Profiler.start");
});

afterAll(async () => {
  const session = state.patchwrightProfiler;
  if (!session) return;
  const { profile } = await session.post("Profiler.stop");
  const count = (state.patchwrightProfiles ?? 0) + 1;
  state.patchwrightProfiles = count;
  mkdirSync(dir, { recursive: true });
  const name = `${process.pid}-${count}-${file.replaceAll("/", "_")}.cpuprofile`;
  writeFileSync(join(dir, name), JSON.stringify({ file, profile }));
});
