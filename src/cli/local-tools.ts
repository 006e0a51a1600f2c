import { homedir } from "node:os";
import { join } from "node:path";
import { buildShellEnv } from "../agent/tools/shell-env.js";
import { detectProjectTools } from "../deps/managers/project-tools-source.js";
import { type JobTools, openJobTools } from "../kernel/project-tools.js";
import { isDirectory } from "./local-paths.js";

/**
 * The checkout's own package manager for the agent's shell in `patchwright
 * run` without --repo (kernel/project-tools.ts): the tool by its name on
 * the PATH, started from the corepack cache the user already has, shown
 * read-only (its releases, no credentials). A corepack-enabled `pnpm` in
 * the sandbox found an empty HOME and, with no network, could not fetch
 * the release the project pins. Nothing is fetched here: a release not in
 * the cache still needs `corepack install` in the checkout first.
 */
export async function localTools(
  cwd: string,
  env: Record<string, string | undefined>,
  /** Told what the checkout needs that this machine lacks (a newer Node). */
  warn?: (message: string) => void,
): Promise<{ tools: JobTools; readOnly: string[] } | undefined> {
  const found = await detectProjectTools(cwd, buildShellEnv(env), warn).catch(() => undefined);
  if (!found) return undefined;
  const home = corepackHome(env);
  const cached = (await isDirectory(home)) ? home : undefined;
  const tools = await openJobTools({
    ...found,
    fetch: undefined,
    env: (folder) => ({ ...found.env(folder), ...(cached ? { COREPACK_HOME: cached } : {}) }),
  });
  return { tools, readOnly: cached ? [cached] : [] };
}

/** Where corepack keeps the releases it fetched, as corepack finds it. */
function corepackHome(env: Record<string, string | undefined>): string {
  if (env.COREPACK_HOME) return env.COREPACK_HOME;
  const cache = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
  return join(cache, "node", "corepack");
}
