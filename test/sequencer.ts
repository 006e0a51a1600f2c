import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that start real Apps, workers, registries and package managers
 * (tens of seconds each) go first, the rest after in Vitest's own order
 * (slowest first when it has timings from an earlier run, larger files
 * first when it has none, as in a clean clone). Run last, one of them was
 * the whole suite's tail: 40 s with three workers idle.
 */
const HEAVY = ["test/e2e/", "test/app/", "test/deps/"];

export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const weight = (spec: TestSpecification) => {
      const index = HEAVY.findIndex((folder) => spec.moduleId.includes(`/${folder}`));
      return index === -1 ? HEAVY.length : index;
    };
    // Array.prototype.sort is stable: within a weight, Vitest's order stays.
    return sorted.sort((a, b) => weight(a) - weight(b));
  }
}
