import { createCommandLog } from "../../agent/command-log.js";
import type { AgentEvent } from "../../agent/events.js";
import { FileHistory } from "../../agent/file-history.js";
import { createRedactor } from "../../agent/redact.js";
import { type AgentSessionResult, runAgentSession } from "../../agent/session.js";
import { errorMessage } from "../../error-message.js";
import { pushCheckpoint } from "../../git/commit/checkpoint-ref.js";
import { runGit } from "../../git/git-client.js";
import { captureWorkspaceTree } from "../../git/tree/exact-tree.js";
import { jobMcp } from "../../kernel/mcp-servers.js";
import { stop } from "../../kernel/steps.js";
import { createCheckpointer } from "../checkpoints.js";
import { type ChangeContext, type ChangeState, type ChangeStep, siteOf } from "../context.js";
import { agentTask, firstTurnOptions } from "../early-turn.js";

/**
 * The agent at work in the workspace, each turn that changed files
 * checkpointed as it goes (when the job keeps checkpoints). An agent that
 * failed still hands on what it did: partial work is committed and pushed.
 * Cut short by a shutdown with checkpoints on, the change ends here: the
 * checkpoints hold the work, and the next run resumes, verifies and pushes.
 */
export const agent: ChangeStep = {
  stage: "agent",
  async run(state, ctx) {
    const { workspace, sandboxes } = siteOf(state);
    const { input, services, gitEnv } = ctx;
    ctx.events.step("Running the agent");
    // The workspace as the agent finds it, hashed from scratch beside the
    // first model request (no tool runs before it is taken): what the commits
    // are checked against before anything is pushed.
    const startTree = captureWorkspaceTree(workspace.dir, gitEnv);
    const commandLog = createCommandLog();
    const head = await headOf(workspace.dir, ctx);
    const history = new FileHistory();
    const checkpointer = checkpointerFor(state, ctx, head, history);
    const onEvent = (event: AgentEvent) => {
      commandLog.listener(event);
      checkpointer?.listener(event);
      ctx.events.agent(event);
    };
    const { resumed } = state.result;
    let session: AgentSessionResult;
    let endTree: string;
    try {
      session = await runAgentSession({
        // The same options the early first turn was sent with (early-turn.ts).
        ...firstTurnOptions(ctx, agentTask(ctx, state)),
        root: workspace.dir,
        history,
        sandbox: sandboxes.agent,
        ...(state.tools ? { shellEnv: state.tools.env } : {}),
        onEvent,
        beforeTools: startTree,
        earlyTurn: await state.earlyTurn,
        ...(input.mcpServers && Object.keys(input.mcpServers).length > 0
          ? {
              mcp: await jobMcp({
                servers: input.mcpServers,
                env: gitEnv,
                launcher: services.sandbox,
                dir: workspace.dir,
              }),
            }
          : {}),
      });
      endTree = await captureWorkspaceTree(workspace.dir, gitEnv);
    } catch (error) {
      // What was checkpointed stays saved; the scratch index goes (the App runs on).
      await checkpointer?.discard();
      throw error;
    }
    const chain = await checkpointer?.finish();
    const next: ChangeState = {
      ...state,
      result: {
        ...state.result,
        agent: session.result,
        commands: commandLog.commands(),
        changes: session.history.netChanges(),
        commits: [...(resumed?.commits ?? [])],
        ...(session.result.stopReason === "error"
          ? { error: { stage: "agent", message: session.result.error ?? "the agent failed" } }
          : {}),
      },
      agentRun: {
        session,
        head,
        after: await headOf(workspace.dir, ctx),
        trees: { start: await startTree, end: endTree },
        chain,
      },
    };
    if (chain && ctx.signal.aborted) {
      next.result.interrupted = { checkpoint: chain.saved ? chain.tip : resumed?.from };
      return stop(next);
    }
    return next;
  },
};

function checkpointerFor(
  state: ChangeState,
  ctx: ChangeContext,
  head: string,
  history: FileHistory,
) {
  const target = state.checkpoints;
  if (!target) return undefined;
  const { input, services } = ctx;
  return createCheckpointer({
    dir: siteOf(state).workspace.dir,
    env: ctx.gitEnv,
    start: head,
    history,
    identity: input.identity,
    coAuthor: input.coAuthor,
    requestUrl: input.requestUrl,
    redact: createRedactor(services.secrets.map((secret) => secret.value)),
    save: async (sha) => {
      await pushCheckpoint({ ...target, sha, secrets: services.secrets });
      await ctx.events.checkpoint(sha);
    },
    onError: (error) => ctx.events.warning(`a checkpoint was not saved: ${errorMessage(error)}`),
  });
}

async function headOf(dir: string, ctx: ChangeContext): Promise<string> {
  return (await runGit(dir, ["rev-parse", "HEAD"], { env: ctx.gitEnv })).trim();
}
