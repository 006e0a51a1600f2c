import { readyJobTools } from "../../kernel/project-tools.js";
import { stop } from "../../kernel/steps.js";
import { type ChangeStep, siteOf } from "../context.js";
import { runStepCommand } from "./command.js";

/**
 * The project's own tools made ready (project-tools.ts), then the
 * repository's setup commands, in the setup sandbox (its network); the
 * first that fails stops the change.
 */
export const setup: ChangeStep = {
  stage: "setup",
  async run(state, ctx) {
    const site = siteOf(state);
    const { workspace, sandboxes } = site;
    const tools = await readyJobTools(
      site.tools,
      (command, label) =>
        runStepCommand(ctx, {
          command,
          label,
          cwd: workspace.dir,
          sandbox: sandboxes.setup,
          networkSetting: "setup_network",
          env: site.tools?.env(ctx.shellEnv),
        }),
      (message) => ctx.events.warning(message),
      ctx.shellEnv,
    );
    const env = tools ? tools.env(ctx.shellEnv) : ctx.shellEnv;
    for (const command of ctx.input.setup) {
      const outcome = await runStepCommand(ctx, {
        command,
        label: `Running setup: \`${command}\``,
        cwd: workspace.dir,
        sandbox: sandboxes.setup,
        networkSetting: "setup_network",
        env,
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
    return tools ? { ...state, tools } : state;
  },
};
