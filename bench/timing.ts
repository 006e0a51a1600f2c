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

/**
 * What a new process and fresh memory cost on this machine, measured in a
 * new `node`: the CPU its one thread spends per program it starts (Node
 * forks, so the kernel copies its page tables and it then faults on the
 * pages it writes), and the CPU per page of fresh memory it first writes.
 * The suite is mostly short processes (git, package managers, tool starts),
 * so hosts differ in its time by these as much as by the JavaScript
 * workload. Seen on one 2-core VM (a PVM guest, whose page tables the
 * host shadows): 4.2-5.3 ms per spawn and 15 µs per page; the
 * suite took 476 s there, against 212-240 s on another host of the same
 * size, and the workload of referenceCpuMs 365-464 ms against 176-294 ms.
 */
export async function referenceProcessCost(
  node = process.execPath,
): Promise<{ spawnMs: number; pageUs: number }> {
  const { stdout } = await run(node, ["-e", PROCESS_WORK]);
  const [spawnMs, pageUs] = stdout.trim().split(" ").map(Number);
  return { spawnMs: spawnMs ?? Number.NaN, pageUs: pageUs ?? Number.NaN };
}

const PROCESS_WORK = `
const { spawn } = require("node:child_process");
const SPAWNS = 60;
const PAGES = 16384;
const once = () => new Promise((done, fail) => spawn("/bin/true").on("error", fail).on("close", done));
(async () => {
  for (let i = 0; i < 5; i++) await once();
  let start = process.cpuUsage();
  for (let i = 0; i < SPAWNS; i++) await once();
  let used = process.cpuUsage(start);
  const spawnMs = (used.user + used.system) / 1000 / SPAWNS;
  // Zero-filled by the kernel on first write: one page fault per 4 KiB page.
  const memory = new Uint8Array(PAGES * 4096);
  start = process.cpuUsage();
  for (let at = 0; at < memory.length; at += 4096) memory[at] = 1;
  used = process.cpuUsage(start);
  console.log(spawnMs.toFixed(2), ((used.user + used.system) / PAGES).toFixed(2));
})();
`;
