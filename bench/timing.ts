import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The middle value (the upper middle for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Runs `fn` once to warm up, then `runs` times, and returns the median time in ms. */
export async function timeMedian(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

/**
 * The CPU time, in ms, a fixed piece of JavaScript takes in a new process
 * of `node` (objects, JSON, a regular expression, a sort; startup not
 * counted), median of `runs` after one to warm up. This VM's speed moves by
 * a fifth from hour to hour (the same suite took 442 s of CPU in one run and
 * 537 s in another), and `node -e 0` does not follow it: a bench prints this
 * beside its numbers, so that runs from different hours can be compared.
 * Back to back it still moves by about a tenth: it tells phases apart, not
 * a few percent.
 */
export async function referenceCpuMs(node = process.execPath, runs = 9): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const { stdout } = await run(node, ["-e", REFERENCE_WORK]);
    if (i > 0) times.push(Number(stdout.trim()));
  }
  return median(times);
}

const REFERENCE_WORK = `
const start = process.cpuUsage();
let rows = [];
for (let i = 0; i < 100000; i++) rows.push({ id: i, name: "row " + i, tags: [i % 7, i % 11] });
const text = JSON.stringify(rows);
rows = JSON.parse(text);
let found = 0;
for (const match of text.matchAll(/"name":"row (\\d*7)"/g)) found += match[1].length;
rows.sort((a, b) => (a.name < b.name ? -1 : 1));
const used = process.cpuUsage(start);
if (found === 0 || rows.length !== 100000) process.exit(1);
console.log((used.user + used.system) / 1000);
`;
