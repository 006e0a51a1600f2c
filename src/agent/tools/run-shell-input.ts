import * as z from "../../zod.js";
import type { ShellProcessOptions } from "../shell-process.js";

/**
 * run_shell's input, the limits it names and the tool's options, shared by
 * the tool's declaration and its work (loaded at its first call,
 * define-tool.ts runOnFirstCall).
 */

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const MAX_TIMEOUT_SECONDS = 600;

export interface RunShellOptions extends ShellProcessOptions {
  /** Shell to run commands with; default bash from PATH, else /bin/sh. */
  shell?: string;
}

export const runShellInput = z.object({
  command: z
    .string()
    .check(z.minLength(1), z.describe('The shell command to run (bash syntax), e.g. "npm test"')),
  timeout: z
    .optional(z.number().check(z.positive(), z.lte(MAX_TIMEOUT_SECONDS)))
    .check(
      z.describe(
        `Timeout in seconds (default ${DEFAULT_TIMEOUT_SECONDS}, max ${MAX_TIMEOUT_SECONDS})`,
      ),
    ),
});

export type RunShellInput = z.infer<typeof runShellInput>;
