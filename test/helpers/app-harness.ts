import { generateKeyPairSync } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import type { Model } from "../../src/agent/model/model.js";
import {
  createScriptedModel,
  type RecordedModelRequest,
  type ScriptStep,
} from "../../src/agent/model/scripted.js";

/** A model that keeps what it was asked (a scripted one, or a test's own). */
export type RecordingModel = Model & { readonly requests: RecordedModelRequest[] };

import { createApp } from "../../src/app/index.js";
import type { RedeliverySettings } from "../../src/app/redelivery.js";
import { createGitHubAppClients } from "../../src/github/client.js";
import type { SandboxLauncher } from "../../src/sandbox/sandbox.js";
import type { ServiceQueue } from "../../src/service/job-kinds/inputs.js";
import { ADD_BUG_FILES } from "./demo-repo.js";
import { createFakeGitHub, type FakeGitHub, type FakeGitHubOptions } from "./fake-github.js";
import {
  type BareRepo,
  createBareRepo,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "./git-repos.js";

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples") as Array<{
  name: string;
  examples: Array<Record<string, unknown>>;
}>;

/** Webhook payloads are edited freely in tests: typing every shape would only restate GitHub's docs. */
// biome-ignore lint/suspicious/noExplicitAny: see above.
export type Payload = Record<string, any>;

/** A real payload from @octokit/webhooks-examples (deep-copied), by event and action. */
export function examplePayload(
  event: string,
  action: string,
  extra?: (p: Payload) => boolean,
): Payload {
  const found = examples
    .find((e) => e.name === event)
    ?.examples.find((p) => p.action === action && (!extra || extra(p)));
  if (!found) throw new Error(`no ${event}.${action} example`);
  return structuredClone(found) as Payload;
}

export const PRIVATE_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 })
  .privateKey.export({ type: "pkcs1", format: "pem" })
  .toString();

export const OWNER = "octo-org";
export const REPO = "demo";

/** Points a payload at our fake repository, installation and sender. */
export function aim(
  payload: Payload,
  cloneUrl: string,
  sender: { login: string; id?: number; type?: string },
) {
  payload.repository = {
    ...payload.repository,
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    owner: { ...payload.repository.owner, login: OWNER },
    clone_url: cloneUrl,
    default_branch: "main",
    html_url: `https://github.com/${OWNER}/${REPO}`,
  };
  payload.installation = { id: 42, node_id: "x" };
  payload.sender = {
    ...payload.sender,
    login: sender.login,
    id: sender.id ?? 583231,
    type: sender.type ?? "User",
  };
  return payload;
}

/**
 * Probot replaces the throttle options of the Octokit class it is given
 * with its own (which leave throttling on, and so space every write a
 * second apart), so the switch has to come after its defaults: a function
 * default runs on the options Probot already merged.
 */
const UNTHROTTLED = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { ...(options.throttle as object), enabled: false },
}));

export interface Harness {
  probot: Probot;
  github: FakeGitHub;
  repo: BareRepo;
  idle(): Promise<void>;
  /** What SIGTERM does: stop the worker (grace period), close the queue. */
  stop(graceMs?: number): Promise<void>;
  /** The models jobs were given, in the order they asked. */
  models: RecordingModel[];
  tmp: TempDir;
  /** The App's environment (cache directory and all), for a second instance. */
  env: Record<string, string>;
  /** Where the next job's model comes from. */
  nextModel(): RecordingModel;
  /** The model each job asked for, with the prices it gave (what the config and the ceilings left). */
  asked: Array<{ model: string; pricing: unknown }>;
  /** The fake GitHub's loopback server, when it has one. */
  githubServer?: { url: string; close(): Promise<void> } | undefined;
}

export interface HarnessOptions {
  /** The script of every job's model... */
  steps: ScriptStep[];
  /** ...or one model (or script) per job, in the order jobs start; the last one repeats. */
  scripts?: Array<ScriptStep[] | RecordingModel>;
  github?: Partial<FakeGitHubOptions>;
  files?: Record<string, string>;
  /** Default: the machine's own choice, as `npm start` makes it. */
  sandbox?: SandboxLauncher;
  /** Added to the App's environment. */
  env?: Record<string, string>;
  /** The App's job queue, built on its environment (default: the one `npm start` opens). */
  queue?: (env: Record<string, string>) => Promise<ServiceQueue>;
  /**
   * Serve the fake GitHub on a loopback port instead of through nock: for
   * jobs whose own HTTP clients nock's interceptor breaks (npm-registry-fetch's agent).
   */
  loopbackGitHub?: boolean;
  /** When the App asks again for failed deliveries (default: never, in tests). */
  redelivery?: RedeliverySettings;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const tmp = makeTempDir("pw-app-");
  const env = gitTestEnv(join(tmp.path, "home"));
  const repo = createBareRepo({
    root: tmp.path,
    env,
    files: {
      ...ADD_BUG_FILES,
      ...options.files,
    },
  });
  const github = createFakeGitHub({
    owner: OWNER,
    repo: REPO,
    permissions: { octocat: "write", reader: "read" },
    ...options.github,
  });
  let githubServer: Harness["githubServer"];
  if (options.loopbackGitHub) githubServer = await github.listen();
  else {
    nock.disableNetConnect();
    github.mountNock();
  }
  const models: RecordingModel[] = [];
  const asked: Harness["asked"] = [];
  const nextModel = (): RecordingModel => {
    const scripts = options.scripts;
    const script = scripts ? (scripts[models.length] ?? scripts.at(-1) ?? []) : options.steps;
    const model = Array.isArray(script) ? createScriptedModel(script) : script;
    models.push(model);
    return model;
  };
  const appEnv = {
    ...env,
    PATCHWRIGHT_CACHE_DIR: join(tmp.path, "cache"),
    PATCHWRIGHT_BOT_LOGIN: "patchwright[bot]",
    PATCHWRIGHT_DEPS_SCHEDULER: "off",
    ANTHROPIC_API_KEY: "sk-ant-test-0123456789abcdef",
    PRIVATE_KEY,
    WEBHOOK_SECRET: "webhook-secret-value",
    ...options.env,
  };
  const instance = await loadApp({
    env: appEnv,
    nextModel,
    asked,
    sandbox: options.sandbox,
    baseUrl: githubServer?.url,
    ...(options.queue ? { queue: await options.queue(appEnv) } : {}),
    redelivery: options.redelivery,
  });
  return { ...instance, github, repo, models, tmp, env: appEnv, nextModel, asked, githubServer };
}

/**
 * Another App process on the same cache directory, fake GitHub and
 * repository: what a restart after a deploy or a crash finds.
 */
export async function restartHarness(h: Harness, sandbox?: SandboxLauncher): Promise<Harness> {
  const instance = await loadApp({
    env: h.env,
    nextModel: h.nextModel,
    asked: h.asked,
    sandbox,
    baseUrl: h.githubServer?.url,
  });
  return { ...h, ...instance };
}

async function loadApp(options: {
  env: Record<string, string>;
  nextModel: () => RecordingModel;
  asked: Harness["asked"];
  sandbox?: SandboxLauncher | undefined;
  queue?: ServiceQueue | undefined;
  baseUrl?: string | undefined;
  redelivery?: RedeliverySettings | undefined;
}) {
  const { app, idle, stop } = createApp({
    ...(options.queue ? { queue: options.queue } : {}),
    // The worker's own clients, as npm start builds them, with waits shrunk to milliseconds.
    github: createGitHubAppClients({
      appId: 1,
      privateKey: PRIVATE_KEY,
      secondMs: 1,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    }),
    env: options.env,
    createModel: (model: string, settings?: { pricing?: unknown }) => {
      options.asked.push({ model, pricing: settings?.pricing });
      return options.nextModel();
    },
    // The queue behind a running job shows on its comment within moments.
    queuePollMs: 50,
    redelivery: options.redelivery ?? false,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  });
  const probot = new Probot({
    appId: 1,
    privateKey: PRIVATE_KEY,
    // PW_TEST_LOG=info shows the App's log while a test is being debugged.
    logLevel: (process.env.PW_TEST_LOG as "info" | undefined) ?? "fatal",
    Octokit: UNTHROTTLED,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
  });
  await probot.load(app);
  return { probot, idle, stop };
}

export async function stopHarness(harness: Harness | undefined): Promise<void> {
  // The worker first: a job still running would write to a removed directory.
  await harness?.stop(0).catch(() => {});
  await harness?.githubServer?.close();
  nock.cleanAll();
  nock.enableNetConnect();
  harness?.tmp.remove();
}

/** An issue comment on issue 7 (or a pull request's conversation), id 555, from `sender`. */
export function issueComment(
  h: Harness,
  body: string,
  sender = "octocat",
  options: { pr?: boolean; number?: number } = {},
) {
  const payload = aim(
    examplePayload("issue_comment", "created", (p: Payload) => !p.issue.pull_request),
    h.repo.url,
    { login: sender, type: sender.endsWith("[bot]") ? "Bot" : "User" },
  );
  payload.issue.number = options.number ?? 7;
  payload.issue.title = "add() returns the wrong sum";
  payload.issue.state = "open";
  payload.issue.locked = false;
  if (options.pr) payload.issue.pull_request = { url: "x", html_url: "x" };
  payload.comment.body = body;
  payload.comment.id = 555;
  return payload;
}
