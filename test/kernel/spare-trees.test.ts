import { describe, expect, it } from "vitest";
import { SPARE_MIN_INDEX_BYTES } from "../../src/git/workspace/spare.js";
import { spareOption } from "../../src/kernel/repository.js";

/**
 * Where no later job will use the machine's trees (the Action's runner:
 * JobServices.spareTrees false), a job's workspace makes no spare tree; the
 * App and the CLI keep the default threshold. The spare itself is tested in
 * test/git/workspace/workspace.test.ts, the threshold on a real 20,000-file
 * tree by `npm run bench -- workspace` (which fails when the spare is not taken).
 */
describe("spareOption", () => {
  it("turns spares off for spareTrees: false and leaves the default otherwise", () => {
    expect(spareOption({ spareTrees: false })).toEqual({
      spareMinIndexBytes: Number.POSITIVE_INFINITY,
    });
    expect(spareOption({})).toEqual({});
    expect(spareOption({ spareTrees: true })).toEqual({});
    expect(SPARE_MIN_INDEX_BYTES).toBeGreaterThan(64 * 1024);
  });
});
