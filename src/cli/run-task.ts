import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { AgentEvent } from "../agent/events.js";
import type { AgentResult } from "../agent/loop.js";
import {
  type McpServersConfig,
  readMcpConfigFile,
  resolveMcpServers,
} from "../agent/mcp/config.js";
import type { McpFailure } from "../agent/mcp/servers.js";
import { providerSecrets } from "../agent/model/factory.js";
import type { Model } from "../agent/model/model.js";
import type { PolicyConfig } from "../agent/policy/policy.js";
import { createRedactor, type Redactor } from "../agent/redact.js";
import { runAgentSession } from "../agent/session.js";
import { closeTranscript, openTranscript } from "../agent/transcript.js";
import type { ChangeResult } from "../change/change.js";
import { runChange } from "../change/run-change.js";
import { loadLocalConfig } from "../config/load.js";
import { defaultConfig } from "../config/schema.js";
import { detectProjectTools } from "../deps/managers/project-tools-source.js";
import { errorMessage } from "../error-message.js";
import type { Identity } from "../git/commit/commits.js";
import { gitMetadataPaths } from "../git/workspace/git-metadata.js";
import { type JobEvents, jobEvents } from "../kernel/events.js";
import { guardRepositoryServers } from "../kernel/mcp-servers.js";
import type { JobServices } from "../kernel/services.js";
import { launcherFrom } from "../sandbox/sandbox.js";
import { outboundProxyFromEnv } from "../sandbox/trust/proxy-settings.js";
import { makeScratchDir } from "../scratch.js";
import { secretsInEnv } from "../secrets/patterns.js";
import type { RunArgs } from "./args.js";
import { buildCliModel } from "./build-model.js";
import type { CliIo } from "./cli-io.js";
import { cliSandbox } from "./cli-sandbox.js";
import { createColors } from "./colors.js";
import { watchInterrupts } from "./interrupts.js";
import { toCloneUrl } from "./job-summary.js";
import { createLiveStatus, NO_STATUS } from "./live-status.js";
import { localTools } from "./local-tools.js";
import { createHumanRenderer, type Spinner, toJsonLine } from "./render.js";
import { reportRun } from "./run-report.js";
import { defaultCacheDir, defaultTranscriptPath } from "./state-paths.js";
import { createStepReporter } from "./step-progress.js";
import { UsageError } from "./usage-error.js";

/** What one run needs, built once by runTaskCommand. */
interface RunContext {
  args: RunArgs;
  io: CliIo;
  cwd: string;
  services: JobServices & { signal: AbortSignal };
  events: JobEvents;
  model: Model;
  settings: RunSettings;
  identity: Identity;
}

/**
 * `patchwright run`, its flags and local paths already checked (see main.ts).
 * Exit codes: 0 finished, 1 stopped early or failed, 2 bad usage, 130 interrupted.
 */
export async function runTaskCommand(
  args: RunArgs,
  io: CliIo,
  identity: Identity,
): Promise<number> {
  const cwd = resolve(io.cwd, args.cwd);
  const settings = await runSettings(args, io, cwd);
  const { model } = settings;
  const cacheDir = resolve(io.cwd, args.cacheDir ?? defaultCacheDir(io.env));
  const sandbox = await cliSandbox(io, cacheDir);
  const secrets = secretsInEnv(io.env);
  const redact = createRedactor([
    ...secrets.map((secret) => secret.value),
    ...providerSecrets(io.env),
  ]);
  const started = io.clock.now();
  const transcriptPath = resolve(io.cwd, args.transcript ?? defaultTranscriptPath(io.env, started));
  const transcript = await openTranscript(transcriptPath, redact, io.clock);
  transcript.write({
    type: "run_start",
    task: args.task,
    model: settings.modelSpec,
    cwd,
    policy: settings.policy.preset,
  });

  const status = args.json ? NO_STATUS : createLiveStatus(io.stderr, io.clock);
  const render = eventRenderer(args, io, redact, status);
  const controller = new AbortController();
  const interrupts = watchInterrupts(io, status, controller);
  const context: RunContext = {
    args,
    io,
    cwd,
    services: {
      cacheDir,
      sandbox,
      secrets,
      envSource: io.env,
      clock: io.clock,
      signal: controller.signal,
      projectTools: detectProjectTools,
    },
    events: jobEvents({
      agent: (event) => {
        transcript.write(event);
        render(event);
      },
      ...(args.json
        ? {}
        : { step: createStepReporter({ write: (text) => io.stderr.write(redact(text)), status }) }),
    }),
    model,
    settings,
    identity,
  };
  try {
    const outcome = await (args.repo ? runOnClone(context, args.repo) : runInPlace(context)).catch(
      (error: unknown) => {
        // Stopping can make a step throw; the run still ends with its totals.
        if (interrupts.interrupted()) return {};
        throw error;
      },
    );
    status.stop();
    return reportRun(
      { args, io, redact, transcript, started },
      { ...outcome, interrupted: interrupts.interrupted() },
    );
  } finally {
    status.stop();
    interrupts.unsubscribe();
    await closeTranscript(transcript, (message) =>
      io.stderr.write(`warning: ${redact(message)}\n`),
    );
  }
}

function eventRenderer(
  args: RunArgs,
  io: CliIo,
  redact: Redactor,
  status: Spinner,
): (event: AgentEvent) => void {
  if (args.json) return (event) => io.stdout.write(`${redact(toJsonLine(event))}\n`);
  return createHumanRenderer({
    write: (text) => io.stdout.write(redact(text)),
    colors: createColors(io.stdout.isTTY === true && !io.env.NO_COLOR),
    spinner: status,
    verbose: args.verbose,
  });
}

/** The whole job on a fresh clone: workspace, setup, agent, commits, verify, push. */
async function runOnClone(
  context: RunContext,
  repo: string,
): Promise<{ result?: AgentResult | undefined; job: ChangeResult }> {
  const { args, io } = context;
  const job = await runChange(
    context.services,
    {
      cloneUrl: toCloneUrl(repo, io.cwd),
      token: io.env.GITHUB_TOKEN || undefined,
      baseBranch: args.base,
      existingBranch: args.branch,
      branchTitle: args.task,
      branchPrefix: "agent/",
      task: args.task,
      model: context.model,
      policy: context.settings.policy,
      limits: limitsOf(args),
      setup: args.setup,
      verify: args.verify,
      verifyTimeoutSeconds: args.verifyTimeoutSeconds,
      network: args.network,
      setupNetwork: args.setupNetwork,
      squash: args.squash,
      identity: context.identity,
      push: args.push,
      wantPatch: !args.push,
    },
    context.events,
  );
  return { result: job.agent, job };
}

/** The agent alone, in the user's own directory: no commits, nothing pushed. */
async function runInPlace(context: RunContext): Promise<{ result: AgentResult }> {
  const { args, io, cwd } = context;
  const readOnly = await gitMetadataPaths(cwd, io.env);
  const launcher = await launcherFrom(context.services.sandbox);
  // Names versions and the project's files, nothing of the environment's.
  const local = await localTools(cwd, io.env, (message) =>
    io.stderr.write(`warning: ${message}\n`),
  );
  // One HOME for the run's commands: pnpm's store goes there, not into your checkout.
  const home = await makeScratchDir("job-home");
  const contained = launcher.open({
    workspace: cwd,
    readOnly: [...readOnly, ...(local?.readOnly ?? [])],
    network: args.network,
    shared: local ? [local.tools.folder] : [],
    home,
  });
  const { repository, runner } = context.settings.mcpServers;
  // The checkout's config is the repository's word: its HTTP servers are checked as in a job.
  const fromRepository = await guardRepositoryServers(
    resolveMcpServers(repository, io.env, "repository"),
    undefined,
    outboundProxyFromEnv(io.env),
  );
  const fromRunner = resolveMcpServers(runner, io.env, "runner");
  const mcp = {
    servers: [...fromRepository.servers, ...fromRunner.servers],
    problems: [...fromRepository.problems, ...fromRunner.problems],
    secrets: [...fromRepository.secrets, ...fromRunner.secrets],
  };
  try {
    const { result, mcp: servers } = await runAgentSession({
      root: cwd,
      task: args.task,
      model: context.model,
      policy: context.settings.policy,
      mcp: {
        ...mcp,
        // Each stdio server in a sandbox like the agent's shell's, with its own network.
        sandboxFor: (network) => launcher.open({ workspace: cwd, readOnly, network }),
      },
      limits: limitsOf(args),
      envSource: io.env,
      sandbox: contained,
      ...(local ? { shellEnv: local.tools.env } : {}),
      clock: io.clock,
      signal: context.services.signal,
      onEvent: (event) => context.events.agent(event),
    });
    reportMcp(io, servers, createRedactor(context.services.secrets.map((secret) => secret.value)));
    return { result };
  } finally {
    await contained.close();
    await local?.tools.close();
    await rm(home, { recursive: true, force: true });
  }
}

/** Servers that did not start are said once, after the run; so are the MCP tools it used. */
function reportMcp(
  io: CliIo,
  servers: { failures: McpFailure[]; used: string[] } | undefined,
  redact: Redactor,
): void {
  if (!servers) return;
  for (const failure of servers.failures) {
    io.stderr.write(
      redact(`patchwright: MCP server "${failure.server}" did not start: ${failure.message}\n`),
    );
  }
  if (servers.used.length > 0) io.stderr.write(`MCP tools used: ${servers.used.join(", ")}\n`);
}

/** What the run works with: flags first, then `.github/patchwright.yml` of the directory, then defaults. */
interface RunSettings {
  model: Model;
  /** The model as named (provider/id), for the transcript. */
  modelSpec: string;
  policy: PolicyConfig;
  /** The checkout's own config, and --mcp-config (the runner's: it may pass provider keys). */
  mcpServers: { repository: McpServersConfig; runner: McpServersConfig };
}

async function runSettings(args: RunArgs, io: CliIo, cwd: string): Promise<RunSettings> {
  if (args.repo && args.mcpConfig) {
    throw new UsageError(
      "--mcp-config works on a local checkout for now; drop --repo, or run without MCP servers",
    );
  }
  // A fresh clone's config is not there yet; a local checkout's is read like the App reads it.
  const local = args.repo ? undefined : await loadLocalConfig(cwd);
  if (local && !local.ok) throw new UsageError(`${local.error.path}: ${local.error.message}`);
  const config = local?.config ?? defaultConfig();
  const modelSpec = args.model ?? config.model;
  let fromFile: McpServersConfig = {};
  if (args.mcpConfig) {
    try {
      fromFile = await readMcpConfigFile(resolve(io.cwd, args.mcpConfig));
    } catch (error) {
      throw new UsageError(errorMessage(error));
    }
  }
  return {
    model: buildCliModel(io, modelSpec, config.pricing),
    modelSpec,
    policy: {
      preset: args.policy ?? config.policy.preset,
      allow: [...config.policy.allow, ...args.allow],
      deny: [...config.policy.deny, ...args.deny],
    },
    mcpServers: {
      // A server named in both is the runner's.
      repository: Object.fromEntries(
        Object.entries(config.mcpServers ?? {}).filter(([name]) => !(name in fromFile)),
      ),
      runner: fromFile,
    },
  };
}

function limitsOf(args: RunArgs) {
  return {
    maxTurns: args.maxTurns,
    maxCostUsd: args.maxCostUsd,
    maxDurationMs: args.maxMinutes * 60_000,
  };
}
