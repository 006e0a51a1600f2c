import { resolve } from "node:path";
import { errorMessage } from "../error-message.js";
import {
  isDebugLevel,
  refusalText,
  requireWritableFolder,
  StartupRefusal,
} from "../service/startup-refusal.js";
import { parseCommand, USAGE } from "./args.js";
import type { CliIo } from "./cli-io.js";
import { checkRunPaths } from "./local-paths.js";
import { defaultCacheDir } from "./state-paths.js";
import { UsageError } from "./usage-error.js";
import { readUserIdentity } from "./user-identity.js";
import { readVersion } from "./version.js";

/**
 * The CLI as a function: argv in, exit code out, all I/O through `io`. Each
 * command's modules load when it runs: `--version`, `--help` and a usage
 * error answer without loading the agent, the queue or the registry client.
 */
export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    if (argv[0] === "deps") {
      const { runDepsCommand } = await import("./deps-command.js");
      return await runDepsCommand(argv.slice(1), io);
    }
    if (argv[0] === "worker") {
      const { runWorkerCommand } = await import("./worker-command.js");
      return await runWorkerCommand(argv.slice(1), io);
    }
    const command = parseCommand(argv, io.cwd);
    if (command.kind === "help") {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (command.kind === "version") {
      io.stdout.write(`${await readVersion()}\n`);
      return 0;
    }
    // Every usage error, flags and paths, comes before the API key is asked for.
    await checkRunPaths(command.args, io.cwd);
    // Mirrors and worktrees live there: a file in the way is said before the run, not as its failure.
    await requireWritableFolder(
      resolve(io.cwd, command.args.cacheDir ?? defaultCacheDir(io.env)),
      "the cache folder",
      command.args.cacheDir
        ? "Pass --cache-dir a folder you can write."
        : "Pass --cache-dir a folder you can write (or set XDG_CACHE_HOME).",
    );
    const identity = await readUserIdentity(io);
    const { runTaskCommand } = await import("./run-task.js");
    return await runTaskCommand(command.args, io, identity);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`patchwright: ${error.message}\n`);
      return 2;
    }
    const debug = isDebugLevel(io.env.LOG_LEVEL);
    // A setting, a folder or Redis: one line that names it (the worker's, the run's cache).
    if (error instanceof StartupRefusal) {
      io.stderr.write(refusalText(error, { debug }));
      return 1;
    }
    const stack = debug && error instanceof Error && error.stack ? `\n${error.stack}` : "";
    io.stderr.write(`patchwright: ${errorMessage(error)}${stack}\n`);
    return 1;
  }
}
