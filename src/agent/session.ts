import { realpath } from "node:fs/promises";
import { errorMessage } from "../error-message.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { secretsInEnv } from "../secrets/patterns.js";
import type { AgentEventListener } from "./events.js";
import { FileHistory } from "./file-history.js";
import {
  type AgentLimits,
  type AgentResult,
  type AgentTask,
  firstMessages,
  refusalBeforeFirstTurn,
  runAgent,
  turnRequest,
} from "./loop.js";
import type { McpServerSpec } from "./mcp/config.js";
import { type McpFailure, type McpSession, startMcpServers } from "./mcp/servers.js";
import { type EarlyTurn, sendEarlyTurn, withEarlyTurn } from "./model/early-turn.js";
import { providerSecrets } from "./model/factory.js";
import type { Model } from "./model/model.js";
import { redactingModel, requestCleaner } from "./model/redacting-model.js";
import {
  createPolicyCheck,
  loadPolicyRules,
  type PolicyConfig,
  parsePolicyConfig,
} from "./policy/policy.js";
import type { GitInfo, InstructionFile } from "./prompt.js";
import { buildSystemPrompt } from "./prompt.js";
import { readGitInfo, readInstructionFiles } from "./prompt-context.js";
import { createRedactor } from "./redact.js";
import type { AnyTool, PolicyCheck, PolicyDecision, ToolFacts } from "./tools/define-tool.js";
import { defaultTools } from "./tools/index.js";
import { createToolRegistry } from "./tools/registry.js";
import { buildShellEnv } from "./tools/shell-env.js";
import { createSnapshotter } from "./workspace-snapshot.js";

export interface AgentSessionOptions {
  /** The workspace: every tool path is resolved inside it. */
  root: string;
  task: string;
  model: Model;
  policy: PolicyConfig;
  limits: AgentLimits;
  /** The process environment; only an allowlist of it reaches the agent's shell. */
  envSource: Record<string, string | undefined>;
  /** Where the agent's commands run: the workspace's sandbox. */
  sandbox: Sandbox;
  /**
   * What the job adds to its commands' environment (the project's package
   * manager on PATH, kernel/project-tools.ts); its MCP servers do without.
   */
  shellEnv?: ((env: Record<string, string>) => Record<string, string>) | undefined;
  /**
   * Secrets beyond those in envSource (a token minted for the job): every
   * model request and tool result is redacted of them, and of everything the
   * secret detector finds.
   */
  secrets?: readonly string[] | undefined;
  clock: { now(): number };
  signal?: AbortSignal | undefined;
  onEvent?: AgentEventListener | undefined;
  /** Job-specific rules added to the system prompt. */
  extraRules?: string | undefined;
  thinkingBudget?: number | undefined;
  /** Pass one in to keep recording across several runs in the same workspace. */
  history?: FileHistory | undefined;
  /**
   * No tool runs before this settles: work the caller does on the untouched
   * workspace (hashing it, say) overlaps the first model request.
   */
  beforeTools?: Promise<unknown> | undefined;
  /**
   * The project's agent instructions when the workspace's own must not be
   * trusted (a fork's pull request); default: AGENTS.md / CLAUDE.md in it.
   */
  instructions?: InstructionFile[] | undefined;
  /** The built-in tools; default `defaultTools()`. */
  tools?: readonly AnyTool[] | undefined;
  /** MCP servers for this session, started in the workspace's sandboxes and stopped at its end. */
  mcp?: SessionMcp | undefined;
  /**
   * The first turn, sent before the workspace was there (`sendFirstTurnEarly`):
   * its answer is used when the session's first request is that very
   * request, else it is aborted and the session sends its own.
   */
  earlyTurn?: EarlyTurn | undefined;
}

/** What the session reads in its workspace for the system prompt. */
export interface SessionFacts {
  /** The workspace's real path (the prompt's working directory). */
  root: string;
  git: GitInfo | undefined;
  /** AGENTS.md / CLAUDE.md at the root; unused when the options give `instructions`. */
  instructions: InstructionFile[];
}

/** What a session's first request depends on, besides its facts. */
export type FirstTurnOptions = Pick<
  AgentSessionOptions,
  | "task"
  | "model"
  | "policy"
  | "limits"
  | "envSource"
  | "secrets"
  | "clock"
  | "signal"
  | "extraRules"
  | "thinkingBudget"
  | "instructions"
  | "tools"
>;

export interface SessionMcp {
  servers: readonly McpServerSpec[];
  /** Servers the config named that cannot start (a missing variable), reported with the failures. */
  problems?: readonly McpFailure[] | undefined;
  /** Values taken from the environment for the servers (a token in a header): redacted from results. */
  secrets?: readonly string[] | undefined;
  /** A sandbox of the workspace with a server's network (stdio servers run in it). */
  sandboxFor: McpSandboxFor;
  startTimeoutMs?: number | undefined;
}

type McpSandboxFor = Parameters<typeof startMcpServers>[1]["sandboxFor"];

export interface AgentSessionResult {
  result: AgentResult;
  history: FileHistory;
  root: string;
  /** What the MCP servers did: which failed to start, which tools were used. */
  mcp?: { failures: McpFailure[]; used: string[] };
}

/**
 * A bad policy config fails the session at once; the rest of the policy (the
 * shell grammar above all, a WebAssembly module) loads while the first model
 * request is in flight, since no tool call can come before its answer.
 */
function deferredPolicyCheck(
  config: PolicyConfig,
  root: string,
  tools: readonly ToolFacts[],
  beforeTools: Promise<unknown> | undefined,
): PolicyCheck {
  const policy = parsePolicyConfig(config, tools);
  const rules = loadPolicyRules(policy, { root, tools }).then(
    createPolicyCheck,
    (error: unknown) => {
      const message = errorMessage(error);
      return (): PolicyDecision => ({
        allow: false,
        reason: `the policy could not be loaded: ${message}`,
      });
    },
  );
  // Whether it settles well is the caller's to judge; here it only orders.
  const ready = beforeTools?.catch(() => undefined);
  return async (call) => {
    await ready;
    return (await rules)(call);
  };
}

/**
 * Wires the agent for one workspace: tools, policy, shell environment,
 * change tracking and the system prompt, then runs it. The CLI and the job
 * runner both start the agent through here.
 */
export async function runAgentSession(options: AgentSessionOptions): Promise<AgentSessionResult> {
  try {
    return await runSession(options);
  } finally {
    // Not taken by now (the session failed before its first turn): nobody will.
    options.earlyTurn?.discard();
  }
}

async function runSession(options: AgentSessionOptions): Promise<AgentSessionResult> {
  const root = await realpath(options.root);
  const env = buildShellEnv(options.envSource);
  const history = options.history ?? new FileHistory();
  // Independent reads and git processes, side by side: they are all on the
  // way to the first model request.
  // A bad policy config fails before anything starts (MCP tools' rules are checked by their shape).
  parsePolicyConfig(options.policy, options.tools);
  const [snapshotter, git, instructions, mcp] = await Promise.all([
    createSnapshotter({ root, env }),
    readGitInfo(root, env),
    options.instructions ?? readInstructionFiles(root, root),
    startSessionMcp(options.mcp, root, env),
  ]);
  const registry = createToolRegistry([...(options.tools ?? defaultTools()), ...mcp.tools]);
  const check = deferredPolicyCheck(options.policy, root, registry.tools, options.beforeTools);
  try {
    const task = sessionTask(options, { root, git, instructions }, registry.tools);
    const redact = sessionRedactor(options, options.mcp?.secrets);
    const result = await runAgent(
      {
        model: redactingModel(withEarlyTurn(options.model, options.earlyTurn), redact),
        registry,
        check,
        history,
        snapshotter,
        root,
        env: options.shellEnv ? options.shellEnv(env) : env,
        sandbox: options.sandbox,
        redact,
        clock: options.clock,
        signal: options.signal,
        onEvent: options.onEvent,
      },
      task,
    );
    const outcome = { failures: mcp.failures, used: mcp.used() };
    if (options.mcp) result.mcp = outcome;
    return { result, history, root, mcp: outcome };
  } finally {
    await Promise.all([snapshotter.close(), mcp.close()]);
  }
}

/** The agent's task: the system prompt from the workspace's facts, the caller's task. */
function sessionTask(
  options: FirstTurnOptions,
  facts: SessionFacts,
  tools: readonly ToolFacts[],
): AgentTask {
  const system = buildSystemPrompt({
    cwd: facts.root,
    date: new Date(options.clock.now()),
    platform: process.platform,
    git: facts.git,
    instructions: options.instructions ?? facts.instructions,
    extraRules: options.extraRules,
    tools,
  });
  return {
    prompt: options.task,
    system,
    limits: options.limits,
    ...(options.thinkingBudget ? { thinkingBudget: options.thinkingBudget } : {}),
  };
}

/** Every request and tool result is redacted of these (and of what the detector finds). */
function sessionRedactor(options: FirstTurnOptions, mcpSecrets?: readonly string[]) {
  return createRedactor([
    ...secretsInEnv(options.envSource).map((secret) => secret.value),
    ...providerSecrets(options.envSource),
    ...(options.secrets ?? []),
    ...(mcpSecrets ?? []),
  ]);
}

/**
 * Sends the first turn of a session that is not there yet, from the facts
 * its workspace will give (read from the repository before the checkout
 * ends): the session's own first request, built and redacted by the same
 * code, so that the session can take its answer (`earlyTurn`) when its
 * facts turn out the same. Undefined when the session would not send that
 * request first (a refusal, a limit already reached, MCP tools that only
 * the session knows).
 */
export function sendFirstTurnEarly(
  options: FirstTurnOptions,
  facts: SessionFacts,
): EarlyTurn | undefined {
  const { limits } = options;
  if (options.signal?.aborted || refusalBeforeFirstTurn(options.model, limits)) return undefined;
  if (limits.maxTurns < 1 || limits.maxCostUsd <= 0 || limits.maxDurationMs <= 0) return undefined;
  try {
    parsePolicyConfig(options.policy, options.tools);
  } catch {
    // The session fails on it, before any request.
    return undefined;
  }
  const registry = createToolRegistry([...(options.tools ?? defaultTools())]);
  const task = sessionTask(options, facts, registry.tools);
  const clean = requestCleaner(sessionRedactor(options));
  const request = clean(turnRequest(task, firstMessages(task), registry));
  return sendEarlyTurn(options.model, request, options.signal);
}

const NO_MCP: McpSession = { tools: [], failures: [], used: () => [], close: async () => {} };

function startSessionMcp(
  mcp: SessionMcp | undefined,
  root: string,
  env: Record<string, string>,
): Promise<McpSession> {
  if (!mcp || (mcp.servers.length === 0 && !mcp.problems?.length)) return Promise.resolve(NO_MCP);
  return startMcpServers(
    mcp.servers,
    { root, env, sandboxFor: mcp.sandboxFor, startTimeoutMs: mcp.startTimeoutMs },
    [...(mcp.problems ?? [])],
  );
}
