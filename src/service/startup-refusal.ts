import { access, constants, mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { errorMessage } from "../error-message.js";

/**
 * Why a process (the App, `patchwright worker`, the CLI) will not start,
 * said in a line or two that name the thing and the setting to change,
 * instead of a stack trace from deep inside: an unusable folder, a Redis
 * that does not answer, a setting that is missing or malformed.
 */
export class StartupRefusal extends Error {
  override name = "StartupRefusal";
}

/**
 * The refusal as its process prints it: its own words, one line, for a
 * StartupRefusal; the message and where to look for anything else. The stack
 * only when asked for (LOG_LEVEL=debug).
 */
export function refusalText(error: unknown, options: { debug: boolean }): string {
  const words =
    error instanceof StartupRefusal
      ? error.message
      : `${errorMessage(error).split("\n")[0]} (LOG_LEVEL=debug shows where)`;
  const stack = options.debug && error instanceof Error && error.stack ? `\n${error.stack}` : "";
  return `patchwright cannot start: ${words}${stack}\n`;
}

/** Whether a LOG_LEVEL asks for stacks. */
export function isDebugLevel(level: string | undefined): boolean {
  return level === "debug" || level === "trace";
}

/**
 * Makes sure `path` is a folder this process can write (creating it as
 * needed), or refuses to start: `what` names it ("the cache folder"), and
 * `fix` says which setting to change ("Set PATCHWRIGHT_CACHE_DIR to…").
 */
export async function requireWritableFolder(
  path: string,
  what: string,
  fix: string,
): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
    await access(path, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new StartupRefusal(
      `${what} ${path} cannot be used: ${await folderProblem(path, error)}. ${fix}`,
    );
  }
}

/** What is wrong with a folder that could not be made or written, in words. */
export async function folderProblem(path: string, error: unknown): Promise<string> {
  // The nearest part of the path that exists: a file there is the usual cause.
  for (let at = path; ; at = dirname(at)) {
    const found = await stat(at).catch(() => undefined);
    if (found && !found.isDirectory()) {
      return at === path ? "it is a file, not a folder" : `${at} is a file, not a folder`;
    }
    if (found || dirname(at) === at) break;
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EROFS") return "the file system is read-only";
  if (code === "ENOSPC") return "the disk is full";
  return errorMessage(error).split("\n")[0] ?? "unknown error";
}
