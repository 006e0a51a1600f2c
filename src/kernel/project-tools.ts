import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { shellQuote } from "../agent/tools/fs/text-file.js";
import { makeScratchDir } from "../scratch.js";
import type { CommandResult } from "./run-command.js";

/**
 * The project's own tools in a job's commands: the package manager its
 * package.json pins (`pnpm@10.28.0`, started by corepack) or the release
 * file it keeps (yarn's `yarnPath`). A sandbox has neither on its PATH
 * (the App's image has no pnpm; a runner's `corepack enable` keeps what it
 * fetched in a HOME the sandbox does not show), so `pnpm install` in
 * setup, the agent's `pnpm test` and verify failed. A job gets a folder of
 * its own, outside the workspace (nothing in it is committed), with a
 * command per tool name first on the PATH and corepack's home, shown
 * writable to the job's sandboxes; setup fetches the tool once with its
 * network, and the agent and verify, which have none, start what it fetched.
 */

/** What a project needs, as the entry's detector found it (deps/managers/project-tools.ts). */
export interface ProjectTools {
  /** For the step line: "pnpm@10.28.0 through corepack", "yarn from .yarn/releases/yarn-4.4.1.cjs". */
  label: string;
  /** Each tool name and the command it runs: `pnpm` -> `corepack pnpm`. */
  shims: Record<string, string>;
  /** The environment every command gets, given the job's tools folder (corepack's home there). */
  env(folder: string): Record<string, string>;
  /** Run once in the setup sandbox, from the workspace, to fetch the tool; none when nothing is fetched. */
  fetch?: string | undefined;
  /**
   * Why the fetch failed, when the tool can say it better than the fetch's
   * last lines (a release fetched that cannot run on the commands' Node).
   * Given the job's tools folder and the commands' environment.
   */
  explain?:
    | ((folder: string, env: Readonly<Record<string, string>>) => Promise<string | undefined>)
    | undefined;
  /**
   * The host's corepack, when it has one. A setup command ported from CI
   * starts with `corepack enable`, which links the tools beside node: a
   * folder the sandbox shows read-only (EROFS, and the setup failed). The
   * job's `corepack` links them into its tools folder instead.
   */
  corepack?: string | undefined;
}

/**
 * Finds what the checkout at `dir` needs; `env` is the commands' (its PATH
 * says what the host has). `warn` is told what the checkout needs that the
 * host lacks and no tool folder gives (a newer Node): the job goes on.
 */
export type ProjectToolsSource = (
  dir: string,
  env: Readonly<Record<string, string>>,
  warn?: (message: string) => void,
) => Promise<ProjectTools | undefined>;

/** A job's tools folder, made: its commands on the PATH and its environment. */
export interface JobTools {
  tools: ProjectTools;
  /** Shown writable, at the same path, in the job's sandboxes. */
  folder: string;
  /** A command environment with the tools: their folder first on PATH, corepack's home. */
  env(base: Readonly<Record<string, string>>): Record<string, string>;
  close(): Promise<void>;
}

export async function openJobTools(tools: ProjectTools): Promise<JobTools> {
  const folder = await makeScratchDir("tools");
  try {
    const dir = join(folder, "bin");
    const bin = await writeShims(dir, tools.shims);
    if (tools.corepack)
      await writeExecutable(join(dir, "corepack"), corepackScript(tools.corepack, dir));
    const extra = tools.env(folder);
    return {
      tools,
      folder,
      env: (base) => bin({ ...base, ...extra }),
      close: () => rm(folder, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The job's tools once what they start is fetched (`tools.fetch`, run by
 * the caller with the setup sandbox's network: the agent and verify have
 * none). A fetch that fails is said, and undefined is given: the job's
 * commands find the tool on the PATH as they would without (a runner's own
 * pnpm still works where corepack cannot reach its registry).
 */
export async function readyJobTools(
  jobTools: JobTools | undefined,
  run: (command: string, label: string) => Promise<CommandResult>,
  warn: (message: string) => void,
  /** The commands' environment, without the tools. */
  env: Readonly<Record<string, string>>,
): Promise<JobTools | undefined> {
  const fetch = jobTools?.tools.fetch;
  if (!jobTools || !fetch) return jobTools;
  const { label, shims } = jobTools.tools;
  const outcome = await run(fetch, `Fetching ${label}`);
  if (outcome.passed) return jobTools;
  const explained = await jobTools.tools
    .explain?.(jobTools.folder, jobTools.env(env))
    .catch(() => undefined);
  const fallback = `the job's commands use the PATH's ${Object.keys(shims).join(", ")}, if any`;
  const why = outcome.networkTrouble ?? errorOf(outcome.outputTail);
  warn(
    explained
      ? `${label} cannot run here (\`${fetch}\`, exit ${outcome.exit}): ${fallback}.\n${explained}`
      : `${label} could not be fetched (\`${fetch}\`, exit ${outcome.exit}): ${fallback}.\n${why}`,
  );
  return undefined;
}

/**
 * What a failed fetch printed that says why: corepack and Node end in a
 * stack trace, whose last lines ("Node.js v20.20.2") say nothing, so the
 * first error line; else the last lines.
 */
function errorOf(output: string): string {
  const lines = output.trim().split("\n");
  const error = lines.find((line) => /^\s*(?:[A-Z]\w*)?Error\b|^\s*ERR_|\bERR_PNPM_/.test(line));
  return error ? error.trim().slice(0, 400) : lines.slice(-3).join("\n");
}

/**
 * Writes a shell script per tool name in `dir` that runs its command with
 * the script's arguments; gives what puts `dir` first on an environment's
 * PATH (nothing to do without shims). The caller makes sure nothing in the
 * way is a link (the dependency job's folder is in the workspace).
 */
export async function writeShims(
  dir: string,
  shims: Readonly<Record<string, string>>,
  write: (path: string, text: string) => Promise<void> = writeExecutable,
): Promise<(env: Record<string, string>) => Record<string, string>> {
  const entries = Object.entries(shims);
  if (entries.length === 0) return (env) => env;
  for (const [name, command] of entries) {
    await write(join(dir, name), `#!/bin/sh\nexec ${command} "$@"\n`);
  }
  return (env) => ({ ...env, PATH: env.PATH ? `${dir}${delimiter}${env.PATH}` : dir });
}

/** `corepack enable` into `dir`; every other command as the host's corepack runs it. */
function corepackScript(corepack: string, dir: string): string {
  const real = shellQuote(corepack);
  return [
    "#!/bin/sh",
    `if [ "$1" = enable ]; then shift; exec ${real} enable --install-directory ${shellQuote(dir)} "$@"; fi`,
    `exec ${real} "$@"`,
    "",
  ].join("\n");
}

async function writeExecutable(path: string, text: string): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, text, { mode: 0o755 });
  await chmod(path, 0o755);
}
