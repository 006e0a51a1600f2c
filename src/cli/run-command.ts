import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { createSpinner } from "nanospinner";
import type { AgentEvent } from "../agent/events.js";
import type { AgentResult } from "../agent/loop.js";
import type { Model } from "../agent/model.js";
import { emptyUsage } from "../agent/model.js";
import { createAnthropicModel } from "../agent/models/anthropic.js";
import { createRedactor } from "../agent/redact.js";
import { runAgentSession } from "../agent/session.js";
import { openTranscript } from "../agent/transcript.js";
import { gitMetadataPaths } from "../git/git-metadata.js";
import { type GitJobResult, runGitJob } from "../job/run-git-job.js";
import { secretsInEnv } from "../secrets/patterns.js";
import { type RunArgs, UsageError } from "./args.js";
import { cliSandbox } from "./cli-sandbox.js";
import { createColors } from "./colors.js";
import { identityFrom, renderJobSummary, summarizeJob, toCloneUrl } from "./job-summary.js";
import { createHumanRenderer, renderTotals, type Spinner, toJsonLine } from "./render.js";

export interface CliStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: Record<string, string | undefined>;
  cwd: string;
  clock: { now(): number };
  /** Subscribes to Ctrl+C; returns the unsubscribe function. */
  onInterrupt(handler: () => void): () => void;
  /** Builds the model; tests may swap it, the default talks to the Messages API. */
  createModel?: (options: { apiKey: string; baseURL?: string; model: string }) => Model;
}

/** Exit codes: 0 finished, 1 stopped early or failed, 2 bad usage, 130 interrupted. */
export async function runCommand(args: RunArgs, io: CliIo): Promise<number> {
  const apiKey = io.env.ANTHROPIC_API_KEY;
  if (!apiKey) {
    throw new UsageError(
      "ANTHROPIC_API_KEY is not set: export your Anthropic API key and run again",
    );
  }
  const cwd = resolve(io.cwd, args.cwd);
  const isDir = await stat(cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) throw new UsageError(`--cwd ${args.cwd}: no such directory`);

  const cacheDir = resolve(io.cwd, args.cacheDir ?? defaultCacheDir(io.env));
  const sandbox = await cliSandbox(io, cacheDir);
  const baseURL = io.env.ANTHROPIC_BASE_URL;
  const modelOptions = { apiKey, model: args.model, ...(baseURL ? { baseURL } : {}) };
  const model = (io.createModel ?? createAnthropicModel)(modelOptions);
  const redact = createRedactor(secretsInEnv(io.env).map((secret) => secret.value));
  const started = io.clock.now();
  const transcriptPath = resolve(io.cwd, args.transcript ?? defaultTranscriptPath(io.env, started));
  const transcript = await openTranscript(transcriptPath, redact, io.clock);
  transcript.write({
    type: "run_start",
    task: args.task,
    model: args.model,
    cwd,
    policy: args.policy,
  });

  const render = args.json
    ? (event: AgentEvent) => io.stdout.write(`${redact(toJsonLine(event))}\n`)
    : createHumanRenderer({
        write: (text) => io.stdout.write(redact(text)),
        colors: createColors(io.stdout.isTTY === true && !io.env.NO_COLOR),
        spinner: io.stderr.isTTY ? terminalSpinner(io.stderr) : { start() {}, stop() {} },
      });

  const controller = new AbortController();
  let interrupts = 0;
  const unsubscribe = io.onInterrupt(() => {
    interrupts += 1;
    if (interrupts === 1) {
      io.stderr.write("\ninterrupted: stopping the run (press Ctrl+C again to quit at once)\n");
      controller.abort(new Error("interrupted"));
    } else {
      process.exit(130);
    }
  });

  try {
    const onEvent = (event: AgentEvent) => {
      transcript.write(event);
      render(event);
    };
    const limits = {
      maxTurns: args.maxTurns,
      maxCostUsd: args.maxCostUsd,
      maxDurationMs: args.maxMinutes * 60_000,
    };
    const policy = { preset: args.policy, allow: args.allow, deny: args.deny };
    let result: AgentResult | undefined;
    let job: GitJobResult | undefined;
    if (args.repo) {
      job = await runGitJob(
        {
          cacheDir,
          sandbox,
          secrets: secretsInEnv(io.env),
          envSource: io.env,
          clock: io.clock,
          signal: controller.signal,
          onEvent,
          onStep: (step) => (args.json ? undefined : io.stderr.write(`${step}…\n`)),
        },
        {
          cloneUrl: toCloneUrl(args.repo, io.cwd),
          token: io.env.GITHUB_TOKEN || undefined,
          baseBranch: args.base,
          existingBranch: args.branch,
          branchTitle: args.task,
          branchPrefix: "agent/",
          task: args.task,
          model,
          policy,
          limits,
          setup: args.setup,
          verify: args.verify,
          network: args.network,
          setupNetwork: args.setupNetwork,
          squash: args.squash,
          identity: identityFrom(io.env),
          push: args.push,
          wantPatch: !args.push,
        },
      );
      result = job.agent;
    } else {
      const contained = sandbox.open({
        workspace: cwd,
        readOnly: await gitMetadataPaths(cwd, io.env),
        network: args.network,
      });
      try {
        ({ result } = await runAgentSession({
          root: cwd,
          task: args.task,
          model,
          policy,
          limits,
          envSource: io.env,
          sandbox: contained,
          clock: io.clock,
          signal: controller.signal,
          onEvent,
        }));
      } finally {
        await contained.close();
      }
    }
    const stopReason = result?.stopReason ?? "error";
    const totals = {
      turns: result?.turns ?? 0,
      usage: result?.usage ?? emptyUsage(),
      costUsd: result?.costUsd ?? 0,
      durationMs: io.clock.now() - started,
      transcriptPath,
    };
    const jobSummary = job ? summarizeJob(job) : undefined;
    transcript.write({
      type: "run_end",
      stopReason,
      ...totals,
      ...(jobSummary ? { job: jobSummary } : {}),
    });
    if (args.json) {
      io.stdout.write(
        `${JSON.stringify({ type: "summary", stopReason, ...totals, ...(jobSummary ? { job: jobSummary } : {}) })}\n`,
      );
    } else {
      if (job) io.stdout.write(`\n${redact(renderJobSummary(job))}\n`);
      io.stderr.write(`\n${renderTotals(totals)}\n`);
    }
    if (stopReason === "aborted") return 130;
    if (job && (job.error || job.verify?.passed === false)) return 1;
    return stopReason === "end_turn" ? 0 : 1;
  } finally {
    unsubscribe();
    await transcript.close();
  }
}

function defaultCacheDir(env: Record<string, string | undefined>): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "patchwright");
}

function defaultTranscriptPath(env: Record<string, string | undefined>, now: number): string {
  // Kept outside the workspace so the transcript is never mistaken for the agent's work.
  const stateHome = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  const stamp = new Date(now).toISOString().replace(/[:.]/g, "-");
  return join(stateHome, "patchwright", "transcripts", `${stamp}.jsonl`);
}

function terminalSpinner(stream: CliStream): Spinner {
  let spinner: ReturnType<typeof createSpinner> | null = null;
  return {
    start(text) {
      spinner?.stop();
      spinner = createSpinner(text, { stream: stream as NodeJS.WriteStream }).start();
    },
    stop() {
      spinner?.clear();
      spinner?.stop();
      spinner = null;
    },
  };
}
