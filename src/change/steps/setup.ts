import type { JobTools } from "../../kernel/project-tools.js";
import { stop } from "../../kernel/steps.js";
import { type ChangeContext, type ChangeState, type ChangeStep, siteOf } from "../context.js";
import { runStepCommand } from "./command.js";

/**
 * The project's own tools made ready (project-tools.ts), then the
 * repository's setup commands, in the setup sandbox (its network); the
 * first that fails stops the change.
 */
export const setup: ChangeStep = {
  stage: "setup",
  async run(state, ctx) {
    const { workspace, sandboxes } = siteOf(state);
    const tools = await readyTools(state, ctx);
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

/**
 * The worksite's tools once what they start is fetched (setup's network;
 * the agent and verify have none). A fetch that fails is said, and the
 * job's commands find the tool on the PATH as they would without: a
 * runner's own pnpm still works where corepack cannot reach its registry.
 */
async function readyTools(state: ChangeState, ctx: ChangeContext): Promise<JobTools | undefined> {
  const { workspace, sandboxes, tools } = siteOf(state);
  const fetch = tools?.tools.fetch;
  if (!tools || !fetch) return tools;
  const outcome = await runStepCommand(ctx, {
    command: fetch,
    label: `Fetching ${tools.tools.label}`,
    cwd: workspace.dir,
    sandbox: sandboxes.setup,
    networkSetting: "setup_network",
    env: tools.env(ctx.shellEnv),
  });
  if (outcome.passed) return tools;
  const lines = outcome.outputTail.trim().split("\n");
  const trouble = outcome.networkTrouble ?? lines.slice(-3).join("\n");
  ctx.events.warning(
    `${tools.tools.label} could not be fetched (\`${fetch}\`, exit ${outcome.exit}): the job's commands use the PATH's ${Object.keys(tools.tools.shims).join(", ")}, if any.\n${trouble}`,
  );
  return undefined;
}
