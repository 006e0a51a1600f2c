import { runCommand } from "../../kernel/run-command.js";
import { type ChangeStep, siteOf, withResult } from "../context.js";

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
    const label = `Verifying: \`${command}\``;
    ctx.events.step(label);
    const outcome = await runCommand({
      command,
      cwd: workspace.dir,
      env: ctx.shellEnv,
      sandbox: sandboxes.agent,
      signal: ctx.signal,
      clock: ctx.services.clock,
      timeoutSeconds: ctx.input.verifyTimeoutSeconds,
      onNetworkTrouble: (note) => ctx.events.step(label, note),
    });
    return withResult(state, { verify: outcome });
  },
};
