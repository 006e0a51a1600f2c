import { type ChangeStep, commandEnv, siteOf, withResult } from "../context.js";
import { runStepCommand } from "./command.js";

/**
 * The repository's check (`verify`) on the committed work, in the agent's
 * sandbox. Not after a failure, and not when the job was stopped (Ctrl+C,
 * a deploy): a check cut short says nothing; the work is still pushed.
 */
export const verify: ChangeStep = {
  stage: "verify",
  async run(state, ctx) {
    const command = ctx.input.verify;
    if (!command || state.result.error || ctx.signal.aborted) return state;
    const { workspace, sandboxes } = siteOf(state);
    const outcome = await runStepCommand(ctx, {
      command,
      label: `Verifying: \`${command}\``,
      cwd: workspace.dir,
      sandbox: sandboxes.agent,
      env: commandEnv(state, ctx),
    });
    return withResult(state, { verify: outcome });
  },
};
