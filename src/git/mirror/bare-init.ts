import { chmod, lstat, mkdir, rm, symlink, writeFile } from "node:fs/promises";
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
 */
export async function initBareRepository(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await Promise.all(
    ["objects/info", "objects/pack", "refs/heads", "refs/tags"].map((sub) =>
      mkdir(join(dir, sub), { recursive: true }),
    ),
  );
  const config = join(dir, "config");
  await writeFile(config, "");
  const [filemode, symlinks, ignorecase] = await Promise.all([
    executableBitSticks(config),
    symlinksWork(dir),
    caseInsensitive(dir),
  ]);
  const core = [
    "[core]",
    "\trepositoryformatversion = 0",
    `\tfilemode = ${filemode}`,
    "\tbare = true",
    ...(symlinks ? [] : ["\tsymlinks = false"]),
    ...(ignorecase ? ["\tignorecase = true"] : []),
  ];
  await Promise.all([
    writeFile(config, `${core.join("\n")}\n`),
    writeFile(join(dir, "HEAD"), "ref: refs/heads/main\n"),
  ]);
}

/** git's probe: flip the owner's executable bit of a file and see whether the mode changed. */
async function executableBitSticks(file: string): Promise<boolean> {
  try {
    const before = (await lstat(file)).mode;
    await chmod(file, before ^ 0o100);
    const after = (await lstat(file)).mode;
    await chmod(file, before);
    return before !== after && (before & 0o100) === 0;
  } catch {
    return false;
  }
}

async function symlinksWork(dir: string): Promise<boolean> {
  const probe = join(dir, `patchwright-symlink-probe-${process.pid}`);
  try {
    await symlink("testing", probe);
    return (await lstat(probe)).isSymbolicLink();
  } catch {
    return false;
  } finally {
    await rm(probe, { force: true });
  }
}

/** The config file, asked for under another case: found only where names ignore case. */
async function caseInsensitive(dir: string): Promise<boolean> {
  return lstat(join(dir, "CoNfIg")).then(
    () => true,
    () => false,
  );
}
