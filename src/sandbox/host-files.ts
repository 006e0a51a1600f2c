import { lstat, mkdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * The host reading a workspace's files: the repository's content and
 * whatever its code or the agent wrote there are the sandbox's, and a
 * symlink among them may point anywhere on the host (`package.json ->
 * /etc/shadow`, `AGENTS.md -> ~/.ssh/id_rsa`). Every read our own code does
 * in a workspace resolves links first and refuses what lands outside.
 */

export class OutsideWorkspaceError extends Error {
  constructor(readonly path: string) {
    super(`${path} resolves to a place outside the workspace (a symlink); it is not read`);
    this.name = "OutsideWorkspaceError";
  }
}

/** The real path of `path` (relative to `root`, or absolute), if it is inside `root`. */
export async function realPathInside(root: string, path: string): Promise<string> {
  const realRoot = await realpath(root);
  const real = await realpath(isAbsolute(path) ? path : resolve(root, path));
  const rel = relative(realRoot, real);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new OutsideWorkspaceError(isAbsolute(path) ? relative(root, path) : path);
  }
  return real;
}

/** readFile for a workspace file; rejects like readFile when it is missing. */
export async function readWorkspaceFile(root: string, path: string): Promise<Buffer> {
  return readFile(await realPathInside(root, path));
}

export async function readWorkspaceText(root: string, path: string): Promise<string> {
  return (await readWorkspaceFile(root, path)).toString("utf8");
}

/**
 * Writes (or, with null, removes) a workspace file without following a link:
 * the folder must resolve inside the workspace, and a symlink at the path
 * itself is replaced, never written through.
 */
export async function writeWorkspaceFile(
  root: string,
  path: string,
  content: Buffer | null,
): Promise<void> {
  const target = resolve(root, path);
  if (content === null) {
    await realPathInside(root, dirname(target)).then(
      () => rm(target, { force: true }),
      (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      },
    );
    return;
  }
  // The deepest folder that exists must be inside before mkdir walks through it.
  let existing = dirname(target);
  while (!(await lstat(existing).catch(() => null))) existing = dirname(existing);
  await realPathInside(root, existing);
  await mkdir(dirname(target), { recursive: true });
  const folder = await realPathInside(root, dirname(target));
  const file = join(folder, basename(target));
  if ((await lstat(file).catch(() => null))?.isSymbolicLink()) await rm(file);
  await writeFile(file, content);
}
