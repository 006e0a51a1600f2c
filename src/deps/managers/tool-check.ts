import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import { shellQuote } from "../../agent/tools/fs/text-file.js";
import type { SandboxLauncher } from "../../sandbox/sandbox.js";
import { makeScratchDir } from "../../scratch.js";
import { packageManager } from "./index.js";
import { toolCommand } from "./tool-command.js";
import type { DetectedManager, ManagerTools } from "./types.js";

/**
 * Whether the project's package manager can be started where the bump job
 * runs it, checked once before any group: a missing tool would fail every
 * group's lockfile step with the shell's "not found", and the agent would be
 * asked to fix that. The sandbox shows system folders and the PATH's
 * toolchains (under a home folder, only their bin folder: a link out of it
 * breaks) but never patchwright's own folder, so a tool the host finds is
 * looked for inside a sandbox too. npm comes with the Node that runs us.
 */

export interface ToolCheckOptions {
  manager: DetectedManager;
  tools?: ManagerTools | undefined;
  /** The environment the tool's commands get (their PATH). */
  env: Record<string, string>;
  sandbox: SandboxLauncher;
}

/** Why the tool cannot be started, or undefined when it can. */
export async function missingTool(options: ToolCheckOptions): Promise<string | undefined> {
  const { manager } = options;
  const tool = packageManager(manager.name);
  // A tool with no launcher comes with the Node that runs us.
  if (!tool.launcher) return undefined;
  const program = toolProgram(manager, options.tools);
  const path = options.env.PATH ?? "";
  const uses = `this repository uses ${manager.name} (${manager.evidence})`;
  const fix = tool.launcher.whenMissing;
  const found = findProgram(program, path);
  if (!found) {
    const where = program.includes("/")
      ? `${program} does not exist or is not executable`
      : `${program} is not on the PATH (${path || "empty"})`;
    return `${uses}, but ${where}; ${fix}. Nothing was changed.`;
  }
  if (options.sandbox.kind !== "bubblewrap" || (await startsInSandbox(program, options)))
    return undefined;
  return `${uses}, but the sandbox its installs run in cannot see ${found} (home folders and patchwright's own folder are hidden from it); ${fix}. Nothing was changed.`;
}

/** The program the job starts the tool with (`corepack`, `bun`, a configured path). */
export function toolProgram(manager: DetectedManager, tools?: ManagerTools): string {
  const command = toolCommand(packageManager(manager.name), tools, manager);
  return command.trim().split(/\s+/)[0] ?? command;
}

/** The file `program` names, or the first one of that name on `path`. */
export function findProgram(program: string, path: string): string | undefined {
  const candidates = program.includes("/")
    ? [program]
    : path
        .split(delimiter)
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, program));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

async function startsInSandbox(program: string, options: ToolCheckOptions): Promise<boolean> {
  const scratch = await makeScratchDir("tool-check");
  try {
    const sandbox = options.sandbox.open({
      workspace: scratch,
      readOnly: [],
      network: { kind: "off" },
    });
    try {
      const test = program.includes("/") ? "test -x" : "command -v";
      const wrapped = await sandbox.wrap({
        argv: ["/bin/sh", "-c", `${test} ${shellQuote(program)} >/dev/null`],
        cwd: scratch,
        env: { PATH: options.env.PATH ?? "" },
      });
      return await new Promise<boolean>((resolve) => {
        execFile(wrapped.file, wrapped.args, { env: wrapped.env }, (error) => resolve(!error));
      });
    } finally {
      await sandbox.close();
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
