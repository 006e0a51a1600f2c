import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { compiled } from "./helpers/source-build.js";

/**
 * src/zod.ts sets zod's English messages, which zod/mini alone leaves unset.
 * Checked in a process of its own: in the test workers, the tests' own
 * classic zod has set them already, so a mistake would not show there.
 */

/** Runs `body` in a fresh Node that imports only the compiled src/zod.ts (as `z`); returns stdout. */
function withSrcZod(body: string): string {
  const url = pathToFileURL(compiled("src/zod.ts")).href;
  const ran = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", `const { z } = await import(${JSON.stringify(url)});\n${body}`],
    { encoding: "utf8" },
  );
  expect(ran.stderr).toBe("");
  return ran.stdout.trim();
}

describe("src/zod.ts", () => {
  it("gives zod's English messages without classic zod loaded", () => {
    const out = withSrcZod(
      [
        "const schema = z.object({ name: z.string(), size: z.optional(z.int().check(z.positive())) });",
        "const result = schema.safeParse({ name: 3, size: 1.5 });",
        "console.log(JSON.stringify(result.error.issues.map((issue) => issue.message)));",
      ].join("\n"),
    );
    expect(JSON.parse(out)).toEqual([
      "Invalid input: expected string, received number",
      "Invalid input: expected int, received number",
    ]);
  });

  it("builds what onFirstUse holds at its first use, once", async () => {
    const { onFirstUse, object, string } = await import("../src/zod.js");
    let builds = 0;
    const schema = onFirstUse(() => {
      builds += 1;
      return object({ name: string() });
    });
    expect(builds).toBe(0);
    expect(schema().safeParse({ name: "a" }).success).toBe(true);
    expect(schema()).toBe(schema());
    expect(builds).toBe(1);
  });
});
