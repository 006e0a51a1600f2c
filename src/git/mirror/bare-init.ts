import { chmodSync, lstatSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A new bare repository, as `git init --bare` makes it, written without the
 * process: a mirror's first fetch waits for it, and on the Action's way to
 * its first model request a spawn costs the busy main thread several
 * milliseconds, longer than these few files (measured on the 2-core VM,
 * interleaved runs: about 13 ms sooner to the first request).
 *
 * The layout is git's (gitrepository-layout(5)): HEAD, config, objects/ and
 * refs/. Left out are the template files (sample hooks, which the mirror
 * deletes anyway, description, info/exclude), which no command needs. The
 * config gets what git writes after probing the filesystem, by the same
 * probes: whether the executable bit sticks (core.filemode), whether
 * symlinks can be made (core.symlinks), and whether names are
 * case-insensitive (core.ignorecase). HEAD names a branch that does not
 * exist, as in any new repository; the mirror's refs come from its fetch.
 * The host's `init.*` settings (a template folder, a default ref or object
 * format) no longer apply: a mirror is always git's default format, whose
 * loose refs git/mirror/mirror-refs.ts reads without a process.
 *
 * Synchronous, as taking the mirror lock is (git/lock.ts): these are a
 * few small files on the cache's disk, while each asynchronous call is a
 * trip to the thread pool whose answer waits for this thread. The Action
 * makes its mirror while that thread loads the bundle (kernel/repository.ts
 * `startPrefetch`), and the ~20 trips put git's fetch 15-20 ms later: on
 * Node 24 on the 2-core VM it started ~79 ms after the process, now 60-64.
 * `extraConfig` is appended to the config (the mirror's remote), in the
 * same write.
 */
export function initBareRepository(dir: string, extraConfig = ""): void {
  for (const sub of ["objects/info", "objects/pack", "refs/heads", "refs/tags"]) {
    mkdirSync(join(dir, sub), { recursive: true });
  }
  const config = join(dir, "config");
  writeFileSync(config, "");
  const filemode = executableBitSticks(config);
  const symlinks = symlinksWork(dir);
  const ignorecase = caseInsensitive(dir);
  const core = [
    "[core]",
    "\trepositoryformatversion = 0",
    `\tfilemode = ${filemode}`,
    "\tbare = true",
    ...(symlinks ? [] : ["\tsymlinks = false"]),
    ...(ignorecase ? ["\tignorecase = true"] : []),
  ];
  writeFileSync(config, `${core.join("\n")}\n${extraConfig}`);
  writeFileSync(join(dir, "HEAD"), "ref: refs/heads/main\n");
}

/** git's probe: flip the owner's executable bit of a file and see whether the mode changed. */
function executableBitSticks(file: string): boolean {
  try {
    const before = lstatSync(file).mode;
    chmodSync(file, before ^ 0o100);
    const after = lstatSync(file).mode;
    chmodSync(file, before);
    return before !== after && (before & 0o100) === 0;
  } catch {
    return false;
  }
}

function symlinksWork(dir: string): boolean {
  const probe = join(dir, `patchwright-symlink-probe-${process.pid}`);
  try {
    symlinkSync("testing", probe);
    return lstatSync(probe).isSymbolicLink();
  } catch {
    return false;
  } finally {
    // unlink, not rmSync: from Node 23 on, rmSync looks through a link and,
    // finding nothing at "testing", silently leaves the dangling link behind
    // (nodejs/node#61020), in every mirror the Action and the Docker image
    // (Node 24) made.
    try {
      unlinkSync(probe);
    } catch {
      // Never made (no symlinks here): nothing to remove.
    }
  }
}

/** The config file, asked for under another case: found only where names ignore case. */
function caseInsensitive(dir: string): boolean {
  try {
    lstatSync(join(dir, "CoNfIg"));
    return true;
  } catch {
    return false;
  }
}
