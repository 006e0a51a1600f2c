import type { EarlyTurn } from "../agent/model/early-turn.js";
import type { AgentSessionResult } from "../agent/session.js";
import { buildShellEnv } from "../agent/tools/shell-env.js";
import type { GitToken } from "../git/credentials.js";
import type { GitEnv } from "../git/git-client.js";
import type { PushTarget } from "../git/push/push-context.js";
import type { RetryOptions } from "../git/retry.js";
import type { JobEvents } from "../kernel/events.js";
import type { JobTools } from "../kernel/project-tools.js";
import type { JobServices } from "../kernel/services.js";
import type { Step } from "../kernel/steps.js";
import type { Worksite } from "../kernel/worksite.js";
import type { ChangeInput, ChangeResult, JobStage } from "./change.js";
import type { CheckpointChain } from "./checkpoints.js";

/**
 * What every step of a change sees: the job's services, its input and its
 * events (fixed for the run), and the state the steps hand on (what the
 * change has found and done so far).
 */
export interface ChangeContext {
  services: JobServices;
  input: ChangeInput;
  events: JobEvents;
  /** The services' signal, or one that never fires. */
  signal: AbortSignal;
  /** git's environment: the process's. */
  gitEnv: GitEnv;
  /** The repository's own commands' environment: the agent's scrubbed one. */
  shellEnv: Record<string, string>;
  /** What git needs to reach the remote: the job's token, the retry policy. */
  remote: { token?: GitToken; retry?: RetryOptions };
  /**
   * The agent's first turn may be sent while the workspace is checked out
   * (early-turn.ts): the steps between `prepare` and `agent` leave the
   * task and the workspace as they are (AGENT_STEPS), and the job keeps no
   * checkpoints it could resume from (the Action's, the CLI's).
   */
  earlyFirstTurn?: boolean | undefined;
}

export interface ChangeState {
  /** What the change reports; every step returns a new one. */
  result: ChangeResult;
  /** Open once `prepare` ran; closed by the runner at the end. */
  site?: Worksite | undefined;
  /** Where checkpoints go (the job's remote and ref), when the job keeps them. */
  checkpoints?: (PushTarget & { ref: string }) | undefined;
  /** The agent's run, for the commit step. */
  agentRun?: AgentRun | undefined;
  /** What steps before the agent found that its task needs (another bot's bump, read from the branch). */
  taskNotes?: string[] | undefined;
  /** The project's tools, once setup fetched them: the agent's and verify's commands get them. */
  tools?: JobTools | undefined;
  /** The agent's first turn, sent by `prepare` during the checkout (early-turn.ts). */
  earlyTurn?: Promise<EarlyTurn | undefined> | undefined;
}

export interface AgentRun {
  session: AgentSessionResult;
  /** HEAD before and after the agent: its own commits in the shell are built on. */
  head: string;
  after: string;
  /** The workspace's tree before and after, hashed from scratch. */
  trees: { start: string; end: string };
  /** The checkpoints made as it went. */
  chain?: CheckpointChain | undefined;
}

export type ChangeStep = Step<ChangeState, ChangeContext, JobStage>;

export function changeContext(
  services: JobServices,
  input: ChangeInput,
  events: JobEvents,
): ChangeContext {
  return {
    services,
    input,
    events,
    signal: services.signal ?? new AbortController().signal,
    gitEnv: services.envSource,
    shellEnv: buildShellEnv(services.envSource),
    remote: {
      ...(input.token ? { token: input.token } : {}),
      ...(services.gitRetry ? { retry: services.gitRetry } : {}),
    },
  };
}

export function emptyResult(branch: string, baseBranch: string): ChangeResult {
  return { branch, baseBranch, changes: [], commits: [], commands: [], durationMs: 0 };
}

/** The state with some of its result replaced. */
export function withResult(state: ChangeState, patch: Partial<ChangeResult>): ChangeState {
  return { ...state, result: { ...state.result, ...patch } };
}

/** The environment of the repository's commands after setup: the shell's, with the project's tools. */
export function commandEnv(state: ChangeState, ctx: ChangeContext): Record<string, string> {
  return state.tools ? state.tools.env(ctx.shellEnv) : ctx.shellEnv;
}

/** The open worksite; a step that needs one runs after `prepare`. */
export function siteOf(state: ChangeState): Worksite {
  if (!state.site) throw new Error("the workspace is not open");
  return state.site;
}
