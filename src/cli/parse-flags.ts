import { errorMessage } from "../error-message.js";
import { UsageError } from "./usage-error.js";

/**
 * Runs a util.parseArgs call and turns what it throws into a one-line usage
 * error that points at the command's help: Node's own messages run to several
 * sentences (about `--` and positional arguments) the user never asked about.
 */
export function parseFlags<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${describeParseError(error)}; see ${command} --help`);
  }
}

function describeParseError(error: unknown): string {
  const message = errorMessage(error);
  // Node quotes what it objects to: '--foo', '--cwd <value>', 'extra'.
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? "";
  const flag = quoted.split(" ")[0];
  switch ((error as { code?: unknown } | null)?.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${quoted}`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument "${quoted}"`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return message.includes("does not take an argument")
        ? `${flag} takes no value`
        : `${flag} needs a value`;
    default:
      return message.split("\n", 1)[0] ?? message;
  }
}
