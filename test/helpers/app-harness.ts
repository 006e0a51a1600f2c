import { generateKeyPairSync } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import { createScriptedModel, type ScriptStep } from "../../src/agent/models/scripted.js";
import { createApp } from "../../src/app/index.js";
import type { SandboxLauncher } from "../../src/sandbox/sandbox.js";
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
  models: ReturnType<typeof createScriptedModel>[];
  tmp: TempDir;
}

export async function startHarness(options: {
  steps: ScriptStep[];
  github?: Partial<FakeGitHubOptions>;
  files?: Record<string, string>;
  /** Default: the machine's own choice, as `npm start` makes it. */
  sandbox?: SandboxLauncher;
}): Promise<Harness> {
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
  nock.disableNetConnect();
  const github = createFakeGitHub({
    owner: OWNER,
    repo: REPO,
    permissions: { octocat: "write", reader: "read" },
    ...options.github,
  });
  github.mountNock();
  const models: Harness["models"] = [];
  const { app, idle } = createApp({
    env: {
      ...env,
      PATCHWRIGHT_CACHE_DIR: join(tmp.path, "cache"),
      PATCHWRIGHT_BOT_LOGIN: "patchwright[bot]",
      PATCHWRIGHT_DEPS_SCHEDULER: "off",
      ANTHROPIC_API_KEY: "sk-ant-test-0123456789abcdef",
      PRIVATE_KEY,
      WEBHOOK_SECRET: "webhook-secret-value",
    },
    createModel: () => {
      const model = createScriptedModel(options.steps);
      models.push(model);
      return model;
    },
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  });
  const probot = new Probot({
    appId: 1,
    privateKey: PRIVATE_KEY,
    logLevel: "fatal",
    Octokit: UNTHROTTLED,
  });
  await probot.load(app);
  return { probot, github, repo, idle, models, tmp };
}

export function stopHarness(harness: Harness | undefined): void {
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
