import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import nock from "nock";
import { afterAll, afterEach, expect } from "vitest";
import { takeUnclosedFiles, trackOpenedFiles } from "./helpers/open-files.js";
import { removeTempDirs } from "./helpers/temp-dir.js";

/**
 * Vitest runs many files in one worker, one module graph (isolate: false), and
 * nock is one of its modules: a file that switched real connections off, or
 * left mocks behind, would leave that to the next file, and its interceptor
 * (which breaks requests over a unix socket) would stay on for files that
 * never asked for it. Each file starts as it would in a fresh worker: nock's
 * interceptor on only when the file imports nock (itself or through its
 * helpers), no mocks, real connections allowed.
 */
nock.cleanAll();
nock.enableNetConnect();
const testPath = expect.getState().testPath;
if (testPath && importsNock(testPath)) {
  if (!nock.isActive()) nock.activate();
} else if (nock.isActive()) nock.restore();

// The directories the file's tests made with makeTempDir (helpers/temp-dir.ts).
afterEach(removeTempDirs);

// Files opened with node:fs/promises and never closed (helpers/open-files.ts).
// This file's hooks were registered first, so this one runs after the test
// file's own afterAll hooks have closed their queues and stores.
trackOpenedFiles();
afterAll(() => {
  expect(takeUnclosedFiles(), "files this test file opened and left open").toEqual([]);
});

/** Whether the file or a test file it imports (relative imports, followed) imports nock. */
function importsNock(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file) || !existsSync(file)) return false;
  seen.add(file);
  const source = readFileSync(file, "utf8");
  for (const [, specifier] of source.matchAll(/from\s+"([^"]+)"/g)) {
    if (specifier === "nock") return true;
    // Only the tests' own helpers: src/ never imports nock.
    if (!specifier?.startsWith(".") || specifier.includes("/src/")) continue;
    if (importsNock(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")), seen)) return true;
  }
  return false;
}
