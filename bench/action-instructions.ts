import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The Action's way to its first model request counted in instructions, with
 * valgrind's cachegrind (`BENCH_ACTION_INSTRUCTIONS=1 npm run bench -- action`,
 * valgrind on the PATH: `apt-get install -y valgrind`). The wall times of this
 * 2-core VM move ±10% from one round to the next, so a change worth 2-5 ms
 * cannot be told from noise by timing it; the same run counted twice mostly
 * agrees within 1% (one count in a few is 3-5% off, so the bench shows the
 * median of three), and rounds within about 3%. A count is what the run's threads executed, not how long
 * they took (no cache misses, page faults or waits), so it says whether a
 * change made less work, and the timed rows say whether that reached the wall.
 * Under valgrind a run takes 50-100 times as long: the run is stopped at its
 * first model request (a preload exits on SIGUSR2), where the count ends.
 */

/** Whether valgrind can be run here. */
export function valgrindFound(): boolean {
  return spawnSync("valgrind", ["--version"], { stdio: "ignore" }).status === 0;
}

export interface CountedCommand {
  file: string;
  args: string[];
  /** Instructions the run executed, read once it has exited. */
  instructions(): number;
}

/**
 * `node [--require stop-on-usr2] ...args` under cachegrind; its count goes to
 * a file in `dir` named by `label`. With `stopOnSignal`, SIGUSR2 ends the run
 * (process.exit, so that cachegrind writes its count).
 */
export function countedNode(
  node: string,
  args: string[],
  dir: string,
  label: string,
  stopOnSignal: boolean,
): CountedCommand {
  const out = join(dir, `cachegrind-${label}.out`);
  const preload = join(dir, "stop-on-usr2.cjs");
  if (stopOnSignal) writeFileSync(preload, 'process.on("SIGUSR2", () => process.exit(0));\n');
  return {
    file: "valgrind",
    args: [
      "--tool=cachegrind",
      "--cache-sim=no",
      `--cachegrind-out-file=${out}`,
      // V8 writes code and runs it: valgrind must see each write.
      "--smc-check=all-non-file",
      "--quiet",
      node,
      ...(stopOnSignal ? ["--require", preload] : []),
      ...args,
    ],
    instructions: () => summaryOf(readFileSync(out, "utf8")),
  };
}

/** The `summary:` line's count of a cachegrind output file. */
export function summaryOf(text: string): number {
  const found = /^summary:\s+(\d+)/m.exec(text);
  if (!found) throw new Error("cachegrind wrote no summary line");
  return Number(found[1]);
}

/** 558123456 -> "558.1M". */
export function millions(count: number): string {
  return `${(count / 1e6).toFixed(1)}M`;
}
