import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Where a suite run keeps its temporary files: a folder of its own
 * (test/global-setup.ts makes it the workers' TMPDIR and removes it at the
 * end), on a RAM-backed filesystem when the host has a usable one.
 *
 * The suite makes and deletes hundreds of thousands of files (bare
 * repositories, worktrees, installed fixtures, npm caches). On this 2-core
 * VM's disk (ext4 without a journal, mounted with `discard`) the kernel's
 * share of that was a third of the run's CPU: 178 s of system time in a
 * 270 s run, against 123 s in a 234 s run with the same tests in /dev/shm
 * (a whole run each; `perf` had ext4's inode allocator and the block layer
 * near the top). What is tested does not change: the product makes its
 * folders where TMPDIR says, as on any host.
 */

/** tmpfs's f_type (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;

/**
 * A run's files stay under ~100 MB (sampled every second over a whole run on
 * the 2-core VM); the margin is for whatever else uses the host's memory.
 * Docker gives a container a 64 MB /dev/shm unless told otherwise.
 */
export const MIN_FREE_BYTES = 2 * 1024 ** 3;

export interface RunTempProbes {
  /** The filesystem's type and free space, or undefined when `path` is not there. */
  statfs(path: string): { type: number; bavail: number; bsize: number } | undefined;
  /** Whether a program written into `dir` runs (a `noexec` mount says no). */
  canRun(dir: string): boolean;
}

const hostProbes: RunTempProbes = {
  statfs(path) {
    try {
      return statfsSync(path);
    } catch {
      return undefined;
    }
  },
  canRun(dir) {
    const probe = join(dir, "can-run");
    writeFileSync(probe, "#!/bin/sh\nexit 0\n");
    chmodSync(probe, 0o755);
    const ran = spawnSync(probe, { stdio: "ignore" });
    rmSync(probe, { force: true });
    return ran.status === 0;
  },
};

export interface RunTemp {
  dir: string;
  /** Why it is where it is, for the run's log. */
  why: string;
}

/**
 * Makes the run's folder: in TMPDIR when the caller set one (their choice),
 * else in `ramDir` when it is a tmpfs with room whose programs may run (the
 * tests run git hooks and package-manager shims from their folders), else
 * in the system's temporary folder.
 */
export function makeRunTemp(
  env: Record<string, string | undefined>,
  { ramDir = "/dev/shm", probes = hostProbes }: { ramDir?: string; probes?: RunTempProbes } = {},
): RunTemp {
  const make = (base: string) => mkdtempSync(join(base, "pw-run-"));
  if (env.TMPDIR) return { dir: make(env.TMPDIR), why: "TMPDIR, as set" };
  const fs = probes.statfs(ramDir);
  if (fs?.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= MIN_FREE_BYTES) {
    const dir = make(ramDir);
    if (probes.canRun(dir)) return { dir, why: `${ramDir} (tmpfs)` };
    rmSync(dir, { recursive: true, force: true });
    return { dir: make(tmpdir()), why: `${ramDir} does not run programs (noexec)` };
  }
  const reason = !fs
    ? "is not there"
    : fs.type !== TMPFS_MAGIC
      ? "is not a tmpfs"
      : `has under ${MIN_FREE_BYTES / 1024 ** 3} GiB free`;
  return { dir: make(tmpdir()), why: `${ramDir} ${reason}` };
}
