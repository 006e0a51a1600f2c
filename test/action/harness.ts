import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { inject } from "vitest";
import { bundleAction } from "../../scripts/bundle-action.mjs";
import { aim, examplePayload, OWNER, type Payload, REPO } from "../helpers/app-harness.js";
import {
  type FakeAnthropic,
  type ServerStep,
  startFakeAnthropic,
} from "../helpers/fake-anthropic-server.js";
import {
  createFakeGitHub,
  type FakeGitHub,
  type FakeGitHubOptions,
} from "../helpers/fake-github.js";
import { type GitHttpServer, startGitHttpServer } from "../helpers/git-http-server.js";
import {
  type BareRepo,
  createBareRepo,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

/**
 * Runs the bundled Action (dist/index.js built from the current sources) as
 * a process, the way a runner does: GITHUB_* variables, INPUT_* inputs, an
 * event file, output and summary files; GitHub, git and the model are
 * loopback fakes.
 */

export const ROOT = resolve(import.meta.dirname, "../..");
export const TOKEN = "ghs_actiontoken0123456789abcdefghijklmn";
export const API_KEY = "sk-ant-action-0123456789abcdef";

/**
 * The Action bundle as the current sources build to (built once per run by
 * test/global-setup.ts), and the Node 24 that action.yml names, to run it on.
 */
export function useBundle(): { readonly entry: string; readonly dir: string } {
  const dir = inject("actionBundleDir");
  return { entry: join(dir, "index.js"), dir };
}

/** Builds the bundle into a fresh temporary directory (for the benchmark). */
export async function buildBundle(): Promise<{ dir: TempDir; entry: string }> {
  const dir = makeTempDir("pw-action-dist-");
  await bundleAction(dir.path);
  return { dir, entry: join(dir.path, "index.js") };
}

/** The Node 24 executable the Action's tests run the bundle on. */
export function node24(): string {
  const path = inject("node24");
  if (!path) throw new Error(`the Action's tests run on Node 24: ${inject("node24Problem")}`);
  return path;
}

export interface ActionWorld {
  tmp: TempDir;
  env: Record<string, string>;
  repo: BareRepo;
  git: GitHttpServer;
  github: FakeGitHub;
  apiUrl: string;
  model: FakeAnthropic;
  cloneUrl: string;
  close(): Promise<void>;
}

export const DEMO_FILES = {
  "package.json": JSON.stringify({
    name: "demo",
    private: true,
    scripts: { test: "node test.js" },
  }),
  "src/add.js": "module.exports = { add: (a, b) => a - b };\n",
  "test.js":
    "const assert = require('node:assert');\nassert.strictEqual(require('./src/add.js').add(2, 3), 5);\n",
};

export async function startWorld(
  options: {
    steps?: ServerStep[];
    github?: Partial<FakeGitHubOptions>;
    /** Called as each model request arrives (the bench times the first one). */
    onModelRequest?: () => void;
    /** The loopback address the model's API listens on (default 127.0.0.1). */
    modelHost?: string;
    /** The repository's files; default DEMO_FILES. */
    files?: Record<string, string>;
    /** Which tokens the git server takes at the moment (default: TOKEN only). */
    gitAccepts?: (token: string) => boolean;
  } = {},
): Promise<ActionWorld> {
  const tmp = makeTempDir("pw-action-");
  const env = gitTestEnv(join(tmp.path, "home"));
  const files = options.files ?? DEMO_FILES;
  const repo = createBareRepo({ root: tmp.path, env, name: REPO, files });
  const git = await startGitHttpServer({
    projectRoot: tmp.path,
    token: TOKEN,
    env,
    ...(options.gitAccepts ? { accepts: options.gitAccepts } : {}),
  });
  const github = createFakeGitHub({
    owner: OWNER,
    repo: REPO,
    permissions: { octocat: "write", reader: "read" },
    installationToken: TOKEN,
    ...options.github,
  });
  const api = await github.listen();
  const model = await startFakeAnthropic(
    options.steps ?? [],
    options.onModelRequest,
    options.modelHost ? { host: options.modelHost } : {},
  );
  return {
    tmp,
    env,
    repo,
    git,
    github,
    apiUrl: api.url,
    model,
    cloneUrl: git.url(REPO),
    async close() {
      await model.close();
      await api.close();
      await git.close();
      tmp.remove();
    },
  };
}

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples") as Array<{
  name: string;
  examples: Payload[];
}>;

/** The first real payload of an event that has no actions (workflow_dispatch, push), deep-copied. */
export function firstExample(event: string): Payload {
  const found = examples.find((e) => e.name === event)?.examples[0];
  if (!found) throw new Error(`no ${event} example`);
  return structuredClone(found);
}

/** A real payload (deep-copied) pointed at the fake repository and sent by `sender`. */
export function eventPayload(
  world: ActionWorld,
  event: string,
  action: string | undefined,
  sender: string,
  pick?: (p: Payload) => boolean,
): Payload {
  const payload = action ? examplePayload(event, action, pick) : firstExample(event);
  return aim(payload, world.cloneUrl, { login: sender });
}

/** A new comment (id 555) by `sender` on open issue 7 (the demo's bug) of the fake repository: a real payload, re-aimed. */
export function commentPayload(
  world: ActionWorld,
  sender: string,
  body: string,
  title = "add() returns the wrong sum",
): Payload {
  const payload = eventPayload(
    world,
    "issue_comment",
    "created",
    sender,
    (p: Payload) => !p.issue.pull_request,
  );
  Object.assign(payload.issue, { number: 7, title, state: "open", locked: false });
  Object.assign(payload.comment, { id: 555, body });
  return payload;
}

export interface ActionRun {
  code: number | null;
  /** stdout and stderr together: the step's log. */
  log: string;
  outputs: Record<string, string>;
  summary: string;
  runnerTemp: string;
}

/** Parses the GITHUB_OUTPUT file (`name<<delimiter`, value lines, `delimiter`). */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const match = lines[i]?.match(/^([^<=]+)<<(.+)$/);
    if (!match?.[1] || !match[2]) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== match[2]; i++) value.push(lines[i] ?? "");
    outputs[match[1]] = value.join("\n");
  }
  return outputs;
}

/** The environment a runner gives the step, for a world and an event. */
export function runnerEnv(
  world: ActionWorld,
  runDir: string,
  event: string,
  inputs: Record<string, string>,
): Record<string, string> {
  return {
    ...world.env,
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: join(runDir, "event.json"),
    GITHUB_OUTPUT: join(runDir, "output.txt"),
    GITHUB_STEP_SUMMARY: join(runDir, "summary.md"),
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_API_URL: world.apiUrl,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: "9001",
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_ACTOR: "octocat",
    GITHUB_ACTOR_ID: "583231",
    GITHUB_REF_NAME: "main",
    RUNNER_TEMP: join(runDir, "temp"),
    ANTHROPIC_BASE_URL: world.model.url,
    ...Object.fromEntries(
      Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
    ),
  };
}

/** Writes the event file and empty output/summary files into a fresh run directory. */
export function prepareRun(world: ActionWorld, payload: unknown): string {
  const runDir = join(world.tmp.path, `run-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(join(runDir, "temp"), { recursive: true });
  writeFileSync(join(runDir, "event.json"), JSON.stringify(payload));
  writeFileSync(join(runDir, "output.txt"), "");
  writeFileSync(join(runDir, "summary.md"), "");
  return runDir;
}

export async function runAction(
  entry: string,
  world: ActionWorld,
  options: {
    event: string;
    payload: unknown;
    inputs: Record<string, string>;
    /** Gets the running process (to signal it, as a runner cancelling the job does). */
    onSpawn?: (child: ChildProcess) => void;
    /** More variables for the step (TMPDIR, say). */
    env?: Record<string, string>;
  },
): Promise<ActionRun> {
  const runDir = prepareRun(world, options.payload);
  const child = spawn(node24(), [entry], {
    cwd: runDir,
    env: { ...runnerEnv(world, runDir, options.event, options.inputs), ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  options.onSpawn?.(child);
  let log = "";
  child.stdout.on("data", (chunk) => (log += chunk));
  child.stderr.on("data", (chunk) => (log += chunk));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  return {
    code,
    log,
    outputs: parseOutputFile(readFileSync(join(runDir, "output.txt"), "utf8")),
    summary: readFileSync(join(runDir, "summary.md"), "utf8"),
    runnerTemp: join(runDir, "temp"),
  };
}

/**
 * A `bwrap` first on the step's PATH that notes each start, then runs the
 * real one: which runs probed or used the sandbox. Pass `env` to runAction.
 */
export function watchBubblewrap(world: ActionWorld): {
  env: Record<string, string>;
  starts(): string[];
} {
  const dir = join(world.tmp.path, `bwrap-watch-${Math.random().toString(36).slice(2, 8)}`);
  const log = join(dir, "starts.log");
  mkdirSync(dir);
  writeFileSync(join(dir, "bwrap"), `#!/bin/sh\necho "$1" >> '${log}'\nexec /usr/bin/bwrap "$@"\n`);
  chmodSync(join(dir, "bwrap"), 0o755);
  return {
    env: { PATH: `${dir}:${world.env.PATH ?? process.env.PATH ?? "/usr/bin:/bin"}` },
    starts: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []),
  };
}

/** How long `holdUntilAsked` holds at most: a run that waits this long asked one thing after another. */
export const HOLD_MS = 10_000;

/**
 * A `holdAnswer` for fake GitHub: the answers `hold` picks wait until a
 * request `awaited` picks has arrived (or HOLD_MS), to show that a run asks
 * the two side by side. `held` lists the paths held.
 */
export function holdUntilAsked(
  awaited: (method: string, path: string) => boolean,
  hold: (method: string, path: string) => boolean,
) {
  let arrived: () => void = () => {};
  const asked = new Promise<void>((done) => {
    arrived = done;
  });
  const held: string[] = [];
  const holdAnswer = (method: string, path: string) => {
    if (awaited(method, path)) arrived();
    if (!hold(method, path)) return undefined;
    held.push(path);
    return Promise.race([asked, new Promise<void>((done) => setTimeout(done, HOLD_MS))]);
  };
  return { held, holdAnswer };
}

export { OWNER, type Payload, REPO };
