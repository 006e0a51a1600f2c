import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startPrefetch } from "../../src/kernel/repository.js";
import { createBareRepo, gitTestEnv, makeTempDir, type TempDir } from "../helpers/git-repos.js";

/**
 * The Action's prefetch tells three moments: git at work, the fetched
 * objects and refs in place (what the read-ahead of the first request's
 * facts waits for), and the mirror done.
 */

let tmp: TempDir;
let env: Record<string, string>;

beforeEach(() => {
  tmp = makeTempDir("pw-prefetch-");
  env = gitTestEnv(tmp.path);
});

afterEach(() => tmp.remove());

describe("startPrefetch", () => {
  it("gives the mirror's folder once the fetched refs are there, no later than the mirror", async () => {
    const repo = createBareRepo({ root: tmp.path, env });
    const order: string[] = [];
    const prefetch = startPrefetch(
      { cacheDir: join(tmp.path, "cache"), envSource: env },
      { cloneUrl: repo.url, repoSizeKb: 1 },
    );
    const objects = prefetch.objects.then((dir) => {
      order.push("objects");
      // The fetched branch is readable now, before the mirror is marked done.
      const tip = dir && readFileSync(join(dir, "refs/remotes/origin/main"), "utf8").trim();
      return { dir, tip };
    });
    const mirror = prefetch.mirror.then((done) => {
      order.push("mirror");
      return done;
    });
    await prefetch.underway;
    const [seen, done] = await Promise.all([objects, mirror]);
    expect(order).toEqual(["objects", "mirror"]);
    expect(done?.created).toBe(true);
    expect(seen.dir).toBe(done?.mirrorDir);
    expect(seen.tip).toBe(repo.sha("main"));

    // A second fetch into the warm mirror tells the same moments.
    const again = startPrefetch(
      { cacheDir: join(tmp.path, "cache"), envSource: env },
      { cloneUrl: repo.url, repoSizeKb: 1 },
    );
    expect(await again.objects).toBe(done?.mirrorDir);
    expect((await again.mirror)?.created).toBe(false);
  });

  it("gives null for the objects of a fetch that failed", async () => {
    const missing = `file://${join(tmp.path, "nowhere.git")}`;
    const prefetch = startPrefetch(
      { cacheDir: join(tmp.path, "cache"), envSource: env, gitRetry: { delaysMs: [] } },
      { cloneUrl: missing, repoSizeKb: 1 },
    );
    expect(await prefetch.objects).toBeNull();
    expect(await prefetch.mirror).toBeNull();
    await prefetch.underway;
  });
});
