import { execFile } from "node:child_process";
import { cp, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

/**
 * A repository's files as the dependency planner reads them, for the
 * benchmarks that plan real projects (deps-real-world.ts, deps-plan.ts).
 */

const run = promisify(execFile);

/** What a plan reads; the rest of a repository is not checked out. */
const WANTED =
  /(^|\/)(package\.json|package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|pnpm-workspace\.yaml|yarn\.lock|bun\.lock|\.npmrc|\.yarnrc|\.yarnrc\.yml|bunfig\.toml|\.nvmrc|\.node-version|\.tool-versions)$|^\.github\/(workflows\/|patchwright\.yml$)|^\.yarn\/(releases|plugins)\//;

/** Only the files a plan reads, from a clone (a URL, a checkout, a bare mirror) or a plain folder. */
export async function checkout(source: string, dir: string): Promise<void> {
  const url = /^(https?|ssh|git|file):\/\/|^git@/.test(source);
  const local = url ? undefined : resolve(source);
  const isGit =
    url ||
    (await run("git", ["-C", local as string, "rev-parse", "--git-dir"]).then(
      () => true,
      () => false,
    ));
  if (!isGit) {
    await cp(local as string, dir, {
      recursive: true,
      filter: (path) => !path.includes(`${"/"}node_modules`),
    });
    return;
  }
  const repo = join(dir, ".clone");
  await run(
    "git",
    url
      ? ["clone", "--quiet", "--depth", "1", "--no-checkout", "--filter=blob:none", source, repo]
      : ["clone", "--quiet", "--no-checkout", local as string, repo],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const { stdout } = await run("git", ["-C", repo, "ls-tree", "-r", "--name-only", "HEAD"], {
    maxBuffer: 256 * 1024 * 1024,
  });
  const paths = stdout.split("\n").filter((p) => WANTED.test(p) && !p.includes("node_modules/"));
  for (let i = 0; i < paths.length; i += 400) {
    const chunk = paths.slice(i, i + 400);
    await run(
      "git",
      ["--git-dir", join(repo, ".git"), "--work-tree", dir, "checkout", "HEAD", "--", ...chunk],
      {
        cwd: dir,
      },
    );
  }
  await rm(repo, { recursive: true, force: true });
}
