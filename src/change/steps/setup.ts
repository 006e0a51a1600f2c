import { stop } from "../../kernel/steps.js";
import { type ChangeStep, siteOf } from "../context.js";
import { runStepCommand } from "./command.js";

/** The repository's setup commands, in the setup sandbox (its network); the first that fails stops the change. */
export const setup: ChangeStep = {
  stage: "setup",
  async run(state, ctx) {
    const { workspace, sandboxes } = siteOf(state);
    for (const command of ctx.input.setup) {
      const outcome = await runStepCommand(ctx, {
        command,
        label: `Running setup: \`${command}\``,
        cwd: workspace.dir,
        sandbox: sandboxes.setup,
        networkSetting: "setup_network",
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
