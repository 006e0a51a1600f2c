import { defineTool, runOnFirstCall, type ToolContext } from "./define-tool.js";
import { INPUT_SCHEMAS } from "./input-schemas.js";
import {
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIMEOUT_SECONDS,
  type RunShellInput,
  type RunShellOptions,
  runShellInput,
} from "./run-shell-input.js";

export function createRunShellTool(options: RunShellOptions = {}) {
  return defineTool({
    name: "run_shell",
    kind: "shell",
    description: [
      "Runs a shell command with bash in the workspace root and returns its exit code, stdout and stderr.",
      "Use it to build, run tests, or inspect the repository (e.g. git status, git log).",
      "It is non-interactive: stdin is closed, so commands that prompt fail; pass flags like --yes.",
      "It runs in a sandbox: only the workspace is writable, HOME and /tmp are private, git metadata is read-only",
      "and there is no network unless the repository allows it.",
      "The environment holds no credentials. Background processes are stopped when the command returns,",
      `so start and use a server within one command. Default timeout ${DEFAULT_TIMEOUT_SECONDS}s, max ${MAX_TIMEOUT_SECONDS}s.`,
      "Prefer read_file, list_files and grep_search over cat, find and grep.",
    ].join(" "),
    input: runShellInput,
    inputJsonSchema: INPUT_SCHEMAS.run_shell,
    summarize: (args) => `run_shell ${firstLine(args.command)}`,
    run: runOnFirstCall(() =>
      import("./tools-work.js").then(
        (work) => (args: RunShellInput, ctx: ToolContext) => work.runShellRun(args, ctx, options),
      ),
    ),
  });
}

export const runShellTool = createRunShellTool();

function firstLine(command: string): string {
  const line = command.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 80)}...` : line;
}

const EXIT_LINE = /^exit code: (.+)$/m;

/** The exit status a run_shell result reports ("0", "1", "143 (killed by SIGTERM)"), or null. */
export function exitOfResult(content: string): string | null {
  return EXIT_LINE.exec(content)?.[1]?.trim() ?? null;
}
