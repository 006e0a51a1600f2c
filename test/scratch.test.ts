import { mkdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeScratchDir, SCRATCH_PREFIX, sweepScratch } from "../src/scratch.js";
import { makeTempDir } from "./helpers/temp-dir.js";

describe("scratch folders", () => {
  it("are made under the one prefix the sweep knows", async () => {
    const dir = await makeScratchDir("checkpoint");
    expect(basename(dir).startsWith(`${SCRATCH_PREFIX}checkpoint-`)).toBe(true);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    await rm(dir, { recursive: true });
  });

  it("are swept when a crash left them long enough, and nothing else is", async () => {
    const tmp = await makeTempDir("pw-sweep-");
    const now = Date.now();
    const hours = (n: number) => new Date(now - n * 3_600_000);
    const folder = async (name: string, age: number, file = false) => {
      const path = join(tmp, name);
      if (file) await writeFile(path, "x");
      else {
        await mkdir(path);
        await writeFile(join(path, "index"), "x");
      }
      await utimes(path, hours(age), hours(age));
    };
    await folder(`${SCRATCH_PREFIX}checkpoint-old`, 30);
    await folder(`${SCRATCH_PREFIX}home-recent`, 2);
    await folder(`${SCRATCH_PREFIX}a-file`, 30, true);
    await folder("patchwright-work", 30);
    await folder("someone-elses", 30);
    const removed = await sweepScratch({ olderThanMs: 24 * 3_600_000, now, dir: tmp });
    expect(removed).toEqual([`${SCRATCH_PREFIX}checkpoint-old`]);
    const left = async (name: string) =>
      stat(join(tmp, name)).then(
        () => true,
        () => false,
      );
    expect(await left(`${SCRATCH_PREFIX}checkpoint-old`)).toBe(false);
    for (const name of [
      `${SCRATCH_PREFIX}home-recent`,
      `${SCRATCH_PREFIX}a-file`,
      "patchwright-work",
      "someone-elses",
    ])
      expect(await left(name), name).toBe(true);
  });
});
