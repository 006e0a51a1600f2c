import { parseCommand, USAGE, UsageError } from "./args.js";
import { runDepsCommand } from "./deps-command.js";
import { type CliIo, runCommand } from "./run-command.js";

/** The CLI as a function: argv in, exit code out, all I/O through `io`. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    if (argv[0] === "deps") return await runDepsCommand(argv.slice(1), io);
    const command = parseCommand(argv, io.cwd);
    if (command.kind === "help") {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    return await runCommand(command.args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`patchwright: ${error.message}\n`);
      return 2;
    }
    io.stderr.write(`patchwright: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
