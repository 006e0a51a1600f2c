import { realpath } from "node:fs/promises";
import { errorMessage } from "../error-message.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { secretsInEnv } from "../secrets/patterns.js";
import type { AgentEventListener } from "./events.js";
import { FileHistory } from "./file-history.js";
import { type AgentLimits, type AgentResult, runAgent } from "./loop.js";
import type { Model } from "./model.js";
import {
  createPolicyCheck,
  loadPolicyRules,
  type PolicyConfig,
  parsePolicyConfig,
} from "./policy.js";
import type { InstructionFile } from "./prompt.js";
import { buildSystemPrompt } from "./prompt.js";
import { readGitInfo, readInstructionFiles } from "./prompt-context.js";
import { createRedactor } from "./redact.js";
import type { PolicyCheck, PolicyDecision } from "./tools/define-tool.js";
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
   * Secrets beyond those in envSource (a token minted for the job): tool
   * results are redacted of them, and of every known token shape.
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
}

export interface AgentSessionResult {
  result: AgentResult;
  history: FileHistory;
  root: string;
}

/**
 * A bad policy config fails the session at once; the rest of the policy (the
 * shell grammar above all, a WebAssembly module) loads while the first model
 * request is in flight, since no tool call can come before its answer.
 */
function deferredPolicyCheck(
  config: PolicyConfig,
  root: string,
  beforeTools: Promise<unknown> | undefined,
): PolicyCheck {
  const policy = parsePolicyConfig(config);
  const rules = loadPolicyRules(policy, { root }).then(createPolicyCheck, (error: unknown) => {
    const message = errorMessage(error);
    return (): PolicyDecision => ({
      allow: false,
      reason: `the policy could not be loaded: ${message}`,
    });
  });
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
  const root = await realpath(options.root);
  const env = buildShellEnv(options.envSource);
  const history = options.history ?? new FileHistory();
  // Independent reads and git processes, side by side: they are all on the
  // way to the first model request.
  const [snapshotter, git, instructions] = await Promise.all([
    createSnapshotter({ root, env }),
    readGitInfo(root, env),
    options.instructions ?? readInstructionFiles(root, root),
  ]);
  const check = deferredPolicyCheck(options.policy, root, options.beforeTools);
  try {
    const system = buildSystemPrompt({
      cwd: root,
      date: new Date(options.clock.now()),
      platform: process.platform,
      git,
      instructions,
      extraRules: options.extraRules,
    });
    const result = await runAgent(
      {
        model: options.model,
        registry: createToolRegistry(defaultTools()),
        check,
        history,
        snapshotter,
        root,
        env,
        sandbox: options.sandbox,
        redact: createRedactor([
          ...secretsInEnv(options.envSource).map((secret) => secret.value),
          ...(options.secrets ?? []),
        ]),
        clock: options.clock,
        signal: options.signal,
        onEvent: options.onEvent,
      },
      {
        prompt: options.task,
        system,
        limits: options.limits,
        ...(options.thinkingBudget ? { thinkingBudget: options.thinkingBudget } : {}),
      },
    );
    return { result, history, root };
  } finally {
    await snapshotter.close();
  }
}
