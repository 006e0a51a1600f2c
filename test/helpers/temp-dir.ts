import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSync } from "./sync-spawn.js";

const created: string[] = [];

/** A fresh temporary directory (real path), removed after the test (removeTempDirs). */
export async function makeTempDir(prefix = "pw-test-"): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

/**
 * Removes the directories made since the last call. Registered for every
 * test file by test/shared-file-setup.ts, not here: the files share one
 * module graph per worker (isolate: false), so a hook at this module's top
 * level would join only the first file that imports it, and every later
 * file's directories would stay in /tmp (about 130 a run did).
 */
export async function removeTempDirs(): Promise<void> {
  while (created.length > 0) {
    const dir = created.pop();
    // A queue may still be writing a job's last log line when a test ends: rm retries.
    if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}

/**
 * Runs git synchronously in `dir` with a fixed identity (test setup only),
 * without git's automatic housekeeping: after each commit it starts `git
 * maintenance run --auto`, a process for nothing in a repository that lives
 * for seconds (makeRepo's commit made ~1,100 a run; git-repos.ts's
 * gitTestEnv turns it off the same way for its repositories).
 */
export function git(dir: string, ...args: string[]): string {
  return runSync("git", args, {
    cwd: dir,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Test",
      GIT_AUTHOR_EMAIL: "test@example.com",
      GIT_COMMITTER_NAME: "Test",
      GIT_COMMITTER_EMAIL: "test@example.com",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "maintenance.auto",
      GIT_CONFIG_VALUE_0: "false",
    },
  });
}

/** `git init` plus one commit holding `files`. */
export async function makeRepo(files: Record<string, string>): Promise<string> {
  const { mkdir, writeFile } = await import("node:fs/promises");
  const { dirname } = await import("node:path");
  const dir = await makeTempDir("pw-repo-");
  git(dir, "init", "-q", "-b", "main");
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "initial");
  return dir;
}
