import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Starts the long files first. Vitest orders files by the durations it
 * cached on an earlier run, else by file size; a clean checkout (CI) has no
 * cache, and the longest files (end-to-end runs, real installs) are small,
 * so they came last and ran alone at the end: about 30 s of one busy worker.
 */
const SLOW = [
  /\/test\/e2e\//,
  /\/test\/deps\/(run-deps-job|package-managers)\.test\.ts$/,
  /\/test\/app\/(app|pr-upkeep)\.test\.ts$/,
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const slow = (file: TestSpecification) => SLOW.some((pattern) => pattern.test(file.moduleId));
    return [...sorted.filter(slow), ...sorted.filter((file) => !slow(file))];
  }
}
