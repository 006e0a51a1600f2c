import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LockTimeoutError, withLock } from "../../src/git/lock.js";
import { makeTempDir, type TempDir } from "../helpers/git-repos.js";

let tmp: TempDir;
let lockPath: string;

beforeEach(() => {
  tmp = makeTempDir("patchwright-lock-");
  lockPath = join(tmp.path, "nested", "repo.lock");
});

afterEach(() => tmp.remove());

function plantLock(owner: { pid: number; host: string }, ageMs = 0) {
  mkdirSync(lockPath, { recursive: true });
  writeFileSync(join(lockPath, "owner.json"), JSON.stringify(owner));
  const when = new Date(Date.now() - ageMs);
  utimesSync(lockPath, when, when);
}

describe("withLock", () => {
  it("lets one holder in at a time and releases on success and on failure", async () => {
    let inside = 0;
    let maxInside = 0;
    const order: number[] = [];
    const task = (n: number) =>
      withLock(
        lockPath,
        async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await new Promise((r) => setImmediate(r));
          order.push(n);
          inside--;
          if (n === 2) throw new Error("boom");
          return n;
        },
        { retryMs: 1 },
      );
    const results = await Promise.allSettled([task(1), task(2), task(3), task(4)]);
    expect(maxInside).toBe(1);
    expect(order.sort()).toEqual([1, 2, 3, 4]);
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("breaks a lock whose owner process is gone", async () => {
    const dead = spawnSync(process.execPath, ["-e", ""]).pid ?? 999_999;
    plantLock({ pid: dead, host: hostname() });
    await expect(withLock(lockPath, async () => "got it", { timeoutMs: 0 })).resolves.toBe(
      "got it",
    );
  });

  it("breaks a lock nobody has touched for longer than staleMs", async () => {
    plantLock({ pid: process.pid, host: "another-machine" }, 60_000);
    const result = await withLock(lockPath, async () => "got it", {
      staleMs: 30_000,
      timeoutMs: 0,
    });
    expect(result).toBe("got it");
  });

  it("waits for a live holder and gives up with LockTimeoutError", async () => {
    plantLock({ pid: process.pid, host: hostname() });
    const error = await withLock(lockPath, async () => "never", { timeoutMs: 0 }).catch((e) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect(existsSync(lockPath)).toBe(true);
  });
});
