import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, useBundle } from "./harness.js";

/**
 * action.yml runs the committed dist/index.js, not the sources: a change to
 * src/ without `npm run bundle` would ship the old code. This is the CI check.
 */
const bundle = useBundle();

const STALE = "dist/ is out of date with the sources: run `npm run bundle` and commit dist/";

describe("the committed Action bundle", () => {
  it("is byte for byte what the current sources bundle to", () => {
    const fresh = readdirSync(bundle.dir).sort();
    expect(readdirSync(join(ROOT, "dist")).sort(), STALE).toEqual(fresh);
    for (const file of fresh) {
      const committed = readFileSync(join(ROOT, "dist", file));
      const built = readFileSync(join(bundle.dir, file));
      expect(committed.equals(built), `${STALE} (${file} differs)`).toBe(true);
    }
  });

  it("is what action.yml runs, on the Node version it names", () => {
    const manifest = readFileSync(join(ROOT, "action.yml"), "utf8");
    expect(manifest).toMatch(/^\s+main: dist\/index\.js$/m);
    expect(manifest).toMatch(/^\s+using: node24$/m);
  });
});
