import { type CommandResult, runCommand } from "../../kernel/run-command.js";
import type { ChangeContext } from "../context.js";

/**
 * A repository command of the change (a setup command, verify) on its step's
 * line: in the given sandbox, with the change's timeout, and a network
 * failure in its output said on that line while it runs.
 */
export function runStepCommand(
  ctx: ChangeContext,
  options: {
    command: string;
    label: string;
    cwd: string;
    sandbox: Parameters<typeof runCommand>[0]["sandbox"];
    networkSetting?: "setup_network" | "network";
    /** The command's environment; default the change's shell environment. */
    env?: Record<string, string> | undefined;
  },
): Promise<CommandResult> {
  ctx.events.step(options.label);
  return runCommand({
    command: options.command,
    cwd: options.cwd,
    env: options.env ?? ctx.shellEnv,
    sandbox: options.sandbox,
    signal: ctx.signal,
    clock: ctx.services.clock,
    timeoutSeconds: ctx.input.verifyTimeoutSeconds,
    ...(options.networkSetting ? { networkSetting: options.networkSetting } : {}),
    onNetworkTrouble: (note) => ctx.events.step(options.label, note),
  });
}
