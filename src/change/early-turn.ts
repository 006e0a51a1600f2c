import { realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { readCheckoutFacts } from "../agent/checkout-facts.js";
import type { EarlyTurn } from "../agent/model/early-turn.js";
import { type FirstTurnOptions, sendFirstTurnEarly } from "../agent/session.js";
import { defaultTools } from "../agent/tools/index.js";
import type { PlannedWorkspace } from "../git/workspace/workspace.js";
import type { ChangeContext, ChangeState } from "./context.js";
import { resumeNote } from "./resume.js";

/**
 * The agent's first model request does not need the workspace's files, only
 * the repository's facts (the commit, its recent history, AGENTS.md), which
 * the mirror has as soon as it is fetched. So `prepare` sends it while the
 * worktree is checked out, and the agent step's session takes its answer
 * when its own first request is that request (agent/model/early-turn.ts):
 * the model thinks while git writes files. Tools only ever run in the
 * session, once the workspace is there.
 */

/** The agent session's options that make its first request (the agent step passes the same). */
export function firstTurnOptions(ctx: ChangeContext, task: string): FirstTurnOptions {
  const { input, services } = ctx;
  return {
    task,
    model: input.model,
    policy: input.policy,
    limits: input.limits,
    envSource: services.envSource,
    clock: services.clock,
    signal: ctx.signal,
    extraRules: input.extraRules,
    instructions: input.instructions,
    secrets: services.secrets.map((secret) => secret.value),
    ...(input.tools?.length ? { tools: [...defaultTools(), ...input.tools] } : {}),
  };
}

/** The agent's task as the agent step gives it: the input's, then what earlier steps noted. */
export function agentTask(ctx: ChangeContext, state: ChangeState): string {
  const { resumed } = state.result;
  return [
    ctx.input.task,
    ...(state.taskNotes ?? []),
    ...(resumed ? [resumeNote(resumed)] : []),
  ].join("\n\n");
}

/**
 * Whether the first turn can be told before the checkout: the steps leave
 * the task and the workspace alone until the agent (no setup commands,
 * which may change files), and no MCP server adds tools only a running
 * session knows.
 */
export function mayStartEarly(ctx: ChangeContext, state: ChangeState): boolean {
  const { input } = ctx;
  return (
    ctx.earlyFirstTurn === true &&
    input.setup.length === 0 &&
    Object.keys(input.mcpServers ?? {}).length === 0 &&
    !state.taskNotes?.length
  );
}

/**
 * Reads the new worktree's facts from the mirror and sends the first turn;
 * undefined when they cannot be told or the request is not sent. Never
 * rejects: the session then sends its first request itself.
 */
export async function startEarlyTurn(
  ctx: ChangeContext,
  state: ChangeState,
  planned: PlannedWorkspace,
): Promise<EarlyTurn | undefined> {
  try {
    const [facts, parent] = await Promise.all([
      readCheckoutFacts({
        gitDir: planned.mirrorDir,
        rev: planned.startSha,
        branch: planned.branch,
        env: ctx.shellEnv,
        blobs: { ...planned.gitOptions, signal: ctx.signal },
      }),
      // The session's root is the worktree's real path.
      realpath(dirname(planned.dir)),
    ]);
    if (!facts) return undefined;
    return sendFirstTurnEarly(firstTurnOptions(ctx, agentTask(ctx, state)), {
      root: join(parent, basename(planned.dir)),
      ...facts,
    });
  } catch {
    return undefined;
  }
}
