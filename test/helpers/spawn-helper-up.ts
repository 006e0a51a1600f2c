import { afterAll, beforeAll, describe } from "vitest";
import { runInGroup, useSpawnHelper } from "../../src/spawner.js";

/**
 * Waits until the spawner's helper serves runs (it starts with the first
 * one, and runs before its "ready" start here): its pid, the parent of the
 * programs it starts.
 */
export async function spawnHelperPid(): Promise<number> {
  const options = { cwd: "/tmp", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } };
  for (let i = 0; i < 200; i++) {
    const { stdout } = await runInGroup("sh", ["-c", "echo $PPID"], options).done;
    const parent = Number(stdout.toString().trim());
    if (parent !== process.pid) return parent;
    await new Promise((wait) => setTimeout(wait, 25));
  }
  throw new Error("the spawner's helper never served a run");
}

/**
 * Declares `cases` twice: with programs started by the spawner's helper
 * (waited for), then started here. `starter()` is the pid that starts them.
 */
export function describeBothWays(name: string, cases: (starter: () => number) => void): void {
  describe.each([
    ["through the spawner's helper", true],
    ["started here", false],
  ])(`${name}, %s`, (_how, throughHelper) => {
    let pid = 0;
    beforeAll(async () => {
      useSpawnHelper(throughHelper);
      pid = throughHelper ? await spawnHelperPid() : process.pid;
    });
    afterAll(() => useSpawnHelper(true));
    cases(() => pid);
  });
}
