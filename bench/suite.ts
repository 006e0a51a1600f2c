import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summarizeProfiles } from "./suite-profile.js";
import { referenceCpuMs, referenceProcessCost } from "./timing.js";

/**
 * Where the test suite's time goes: `npx vitest run` (or the files in
 * BENCH_SUITE_FILES), its wall time beside the goal, and the CPU it took.
 *
 * The suite keeps both cores busy from start to end, so its wall time is
 * its CPU time over two, and CPU is what to cut. `time npm test` shows only
 * part of it: the spawner's helpers (src/spawner.ts), bubblewrap's
 * sandboxes and the servers tests start outlive or leave their parents, so
 * their CPU is never added to vitest's. Measured on the 2-core VM: `time`
 * said 486 s of CPU for a run that kept both cores busy for 455 s (910 s).
 * This bench reads the machine's own count (/proc/stat) instead, and
 * attributes it to kinds of process by sampling /proc: each process's own
 * CPU, and for the short-lived programs a sample misses (git runs in a few
 * milliseconds), the CPU their parent collected when it reaped them.
 *
 * Run it on an otherwise idle machine: the busy time is the machine's.
 * Not part of `npm run bench` (it takes minutes): `npm run bench -- suite`.
 *
 * With BENCH_SUITE_PROFILE=1 it also profiles the test workers' main
 * threads, file by file (bench/suite-profile-setup.ts), and says where
 * their time went (bench/suite-profile.ts). The profiler is not light:
 * it added 40-65% to the workers' own CPU (four files, profiled and not,
 * back to back on the 2-core VM: 22.1 -> 31.3 s and 15.9 -> 26.3 s), so
 * take shares from a profiled run, and CPU and wall times from one without.
 *
 * With BENCH_SUITE_DETAIL=npm,pnpm (kinds as printed) it lists the costliest
 * command lines of those kinds too (npm's own title hides its arguments).
 */

const GOAL_S = 180;
const SAMPLE_MS = 200;
const TICK = 100; // USER_HZ on Linux: /proc counts CPU in hundredths of a second.

interface Seen {
  pid: number;
  ppid: number;
  kind: string;
  /** The start of its command line, shown for the kinds the rules do not name. */
  command: string;
  /** Its own CPU, in ticks, at its last sample. */
  self: number;
  /** The CPU of the children it had waited for (and theirs), at its last sample. */
  reaped: number;
  alive: boolean;
  /** For a process older than the run: the CPU it had used when the run started. */
  before: number | undefined;
  /**
   * Whether its command line was read after its first sample: a child
   * caught between fork and exec still shows its parent's.
   */
  settled: boolean;
}

/** The kind of a process, from its command line. */
function kindOf(command: string, name: string): string {
  const rules: Array<[RegExp, string]> = [
    [/vitest\/dist\/workers|vitest\/dist\/worker/, "vitest workers"],
    [/node_modules\/\.bin\/vitest|vitest\.mjs|\bvitest run\b/, "vitest main"],
    [/require\("node:child_process"\)[\s\S]*running = new Map/, "spawner helpers"],
    [/pw-action-dist|dist\/index\.js/, "Action bundle runs"],
    [/pw-sources/, "App and CLI processes (built sources)"],
    [/\bnpm(-cli\.js)?\b|\/bin\/npm\b/, "npm"],
    [/\byarn/, "yarn"],
    [/\bpnpm/, "pnpm"],
    [/\bbun(\.exe)?\b/, "bun"],
    [/chrom/, "chromium"],
    [/redis-server/, "redis-server"],
    [/esbuild|rolldown/, "bundlers"],
  ];
  for (const [pattern, kind] of rules) if (pattern.test(command)) return kind;
  if (name === "git" || name.startsWith("git-")) return "git (sampled)";
  if (name === "bwrap") return "bubblewrap";
  if (name === "node" || /^node\b/.test(command)) return "other node";
  return "other";
}

/** Processes and threads started since boot (the kernel counts each fork and clone). */
function forksSinceBoot(): number {
  const line = readFileSync("/proc/stat", "utf8").match(/^processes (\d+)$/m);
  return Number(line?.[1] ?? Number.NaN);
}

function busyTicks(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const [, user, nice, system, , , irq, softirq] = line.trim().split(/\s+/).map(Number);
  return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
}

function sample(seen: Map<string, Seen>): void {
  for (const entry of seen.values()) entry.alive = false;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // Gone since the listing.
    }
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields after the name, from 0: ppid 1, utime 11, stime 12, cutime 13, cstime 14, starttime 19.
    const key = `${name}@${fields[19]}`;
    let entry = seen.get(key);
    if (!entry?.settled) {
      let command = comm;
      try {
        command = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {}
      const kind = kindOf(command, comm);
      if (entry) {
        Object.assign(entry, { kind, command: command.slice(0, 160), settled: true });
      } else {
        const ids = { pid: Number(name), ppid: Number(fields[1]) };
        entry = {
          ...ids,
          kind,
          command: command.slice(0, 160),
          self: 0,
          reaped: 0,
          alive: true,
          before: undefined,
          settled: false,
        };
        seen.set(key, entry);
      }
    }
    entry.alive = true;
    entry.self = Number(fields[11]) + Number(fields[12]);
    entry.reaped = Number(fields[13]) + Number(fields[14]);
  }
}

export async function bench(): Promise<void> {
  const files = (process.env.BENCH_SUITE_FILES ?? "").split(/\s+/).filter(Boolean);
  const speedBefore = await referenceCpuMs();
  const processCost = await referenceProcessCost();
  const seen = new Map<string, Seen>();
  sample(seen);
  for (const entry of seen.values()) entry.before = entry.self;
  const busyBefore = busyTicks();
  const forksBefore = forksSinceBoot();
  const start = performance.now();
  const profiles = process.env.BENCH_SUITE_PROFILE
    ? mkdtempSync(join(tmpdir(), "pw-suite-profile-"))
    : undefined;
  const child = spawn("npx", ["vitest", "run", ...files], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...(profiles ? { PW_SUITE_PROFILE: profiles } : {}) },
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const timer = setInterval(() => sample(seen), SAMPLE_MS);
  const code = await new Promise<number | null>((done) => child.on("close", done));
  clearInterval(timer);
  sample(seen);
  const wall = (performance.now() - start) / 1000;
  const busy = (busyTicks() - busyBefore) / TICK;
  const forks = forksSinceBoot() - forksBefore;
  if (code !== 0) console.log(`vitest exited with ${code}:\n${stderr}`);

  // A process's reaped CPU holds its sampled children's too; what is left is
  // the programs too short to be sampled, counted under their parent's kind.
  // A child's last sample may predate its own reaping of its children, so a
  // dead child counts for at least what its sampled children add up to.
  const byKind = new Map<string, number>();
  const add = (kind: string, ticks: number) => byKind.set(kind, (byKind.get(kind) ?? 0) + ticks);
  const childrenOf = new Map<number, Seen[]>();
  for (const entry of seen.values()) {
    const list = childrenOf.get(entry.ppid) ?? [];
    list.push(entry);
    childrenOf.set(entry.ppid, list);
  }
  const deadChildren = (entry: Seen) => (childrenOf.get(entry.pid) ?? []).filter((c) => !c.alive);
  const totals = new Map<Seen, number>();
  /** Per command line: its processes' CPU, in ticks, and how many there were. */
  const unnamed = new Map<string, { ticks: number; count: number }>();
  // BENCH_SUITE_DETAIL="npm,pnpm": the costliest command lines of those kinds too.
  const detailed = new Set((process.env.BENCH_SUITE_DETAIL ?? "").split(",").filter(Boolean));
  const total = (entry: Seen): number => {
    let known = totals.get(entry);
    if (known === undefined) {
      const children = deadChildren(entry).reduce((sum, c) => sum + total(c), 0);
      known = entry.self + Math.max(entry.reaped, children);
      totals.set(entry, known);
    }
    return known;
  };
  for (const entry of seen.values()) {
    if (entry.pid === process.pid) {
      add("this bench's sampling", entry.self - (entry.before ?? 0));
      continue;
    }
    if (entry.before !== undefined) {
      // Older than the run (the shell, init): its own use since the start.
      // Not what it reaped: init reaps the helpers and sandboxes that outlive
      // their parents, which are counted as themselves.
      add("processes older than the run", Math.max(0, entry.self - entry.before));
      continue;
    }
    add(entry.kind, entry.self);
    if (entry.kind.startsWith("other") || detailed.has(entry.kind)) {
      // Temporary folders differ from run to run: one line per command.
      const command = `${entry.kind}: ${entry.command.replace(/\/tmp\/\S*/g, "<tmp>")}`;
      const known = unnamed.get(command) ?? { ticks: 0, count: 0 };
      unnamed.set(command, { ticks: known.ticks + entry.self, count: known.count + 1 });
    }
    const sampled = deadChildren(entry).reduce((sum, c) => sum + total(c), 0);
    const unsampled = entry.reaped - sampled;
    if (unsampled > 0) add(`short programs started by ${entry.kind}`, unsampled);
  }
  const attributed = [...byKind.values()].reduce((sum, ticks) => sum + ticks, 0) / TICK;
  const speedAfter = await referenceCpuMs();

  console.log(
    `suite: ${wall.toFixed(0)} s wall (goal < ${GOAL_S} s), ${busy.toFixed(0)} s of CPU on this machine (${(busy / wall).toFixed(2)} cores busy on average)`,
  );
  console.log(
    `  this VM's speed: a fixed JavaScript workload took ${speedBefore.toFixed(0)} ms of CPU before the run and ${speedAfter.toFixed(0)} ms after (compare runs from other hours by it)`,
  );
  // The suite is mostly short processes: hosts differ in these as much as in the workload.
  console.log(
    `  this VM's process cost: ${processCost.spawnMs.toFixed(1)} ms of the caller's CPU per program Node starts, ${processCost.pageUs.toFixed(1)} µs per page of fresh memory; the run started ${forks} processes and threads`,
  );
  console.log(
    `  attributed to processes: ${attributed.toFixed(0)} s; the rest (${Math.max(0, busy - attributed).toFixed(0)} s) is the kernel's own work or processes gone between samples without a parent that reaped them`,
  );
  for (const [kind, ticks] of [...byKind].sort((a, b) => b[1] - a[1])) {
    if (ticks < TICK) continue;
    console.log(
      `  ${(ticks / TICK).toFixed(1).padStart(7)} s  ${((100 * ticks) / TICK / busy).toFixed(1).padStart(5)}%  ${kind}`,
    );
  }
  console.log(
    `  the largest of the kinds above that no rule names${detailed.size > 0 ? ` and of ${[...detailed].join(", ")}` : ""}:`,
  );
  const shown = detailed.size > 0 ? 30 : 8;
  const costliest = [...unnamed].sort((a, b) => b[1].ticks - a[1].ticks).slice(0, shown);
  for (const [command, { ticks, count }] of costliest) {
    console.log(
      `  ${(ticks / TICK).toFixed(1).padStart(7)} s  ${`${count}×`.padStart(5)}  ${command}`,
    );
  }
  if (profiles) {
    for (const line of summarizeProfiles(profiles, process.cwd())) console.log(line);
    rmSync(profiles, { recursive: true, force: true });
  }
}
