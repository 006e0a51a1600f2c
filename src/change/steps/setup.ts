import { runCommand } from "../../kernel/run-command.js";
import { stop } from "../../kernel/steps.js";
import { type ChangeStep, siteOf } from "../context.js";

/** The repository's setup commands, in the setup sandbox (its network); the first that fails stops the change. */
export const setup: ChangeStep = {
  stage: "setup",
  async run(state, ctx) {
    const { workspace, sandboxes } = siteOf(state);
    for (const command of ctx.input.setup) {
      const label = `Running setup: \`${command}\``;
      ctx.events.step(label);
      const outcome = await runCommand({
        command,
        cwd: workspace.dir,
        env: ctx.shellEnv,
        sandbox: sandboxes.setup,
        signal: ctx.signal,
        clock: ctx.services.clock,
        timeoutSeconds: ctx.input.verifyTimeoutSeconds,
        networkSetting: "setup_network",
        onNetworkTrouble: (note) => ctx.events.step(label, note),
      });
      if (!outcome.passed) {
        const trouble = outcome.networkTrouble ? `\n${outcome.networkTrouble}` : "";
        return stop(state, {
          stage: "setup",
          message: ctx.signal.aborted
            ? `the job was stopped during setup command \`${command}\``
            : `setup command \`${command}\` failed (exit ${outcome.exit})${trouble}\n\nIts last output:\n${outcome.outputTail}`,
        });
      }
    }
    return state;
  },
};
