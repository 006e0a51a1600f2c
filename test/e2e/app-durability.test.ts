import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  aim,
  examplePayload,
  OWNER,
  type Payload,
  PRIVATE_KEY,
  REPO,
} from "../helpers/app-harness.js";
import { ADD_BUG_FILES, fixAddSteps } from "../helpers/demo-repo.js";
import { type FakeAnthropic, startFakeAnthropic } from "../helpers/fake-anthropic-server.js";
import { createFakeGitHub, type FakeGitHub } from "../helpers/fake-github.js";
import { type GitHttpServer, startGitHttpServer } from "../helpers/git-http-server.js";
import {
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";
import { reply } from "../helpers/model-script.js";
import { type RedisServer, startRedis } from "../helpers/redis-server.js";
import {
  eventually,
  killProcess,
  postWebhook,
  type ServiceProcess,
  startAppProcess,
  startWorkerProcess,
} from "../helpers/service-process.js";

/**
 * Crashes and deploys against real processes: `npm start` with its
 * embedded queue, and the App with `patchwright worker`s on a real Redis.
 * A job is caught mid-run (the model holds its third request), after its
 * first checkpoint is on the git server; then its process is killed.
 */

const TOKEN = "ghs_e2etoken0123456789abcdefghijklmnopq";
const SECRET = "webhook-secret-for-tests";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface World {
  tmp: TempDir;
  env: Record<string, string>;
  github: FakeGitHub;
  model: FakeAnthropic;
  bare: string;
  gitEnv: Record<string, string>;
  cloneUrl: string;
}

async function world(): Promise<World> {
  const tmp = makeTempDir("pw-e2e-durable-");
  cleanups.push(() => tmp.remove());
  const gitEnv = gitTestEnv(join(tmp.path, "home"));
  createBareRepo({ root: tmp.path, env: gitEnv, name: REPO, files: ADD_BUG_FILES });
  const gitServer: GitHttpServer = await startGitHttpServer({
    projectRoot: tmp.path,
    token: TOKEN,
    env: gitEnv,
  });
  cleanups.push(() => gitServer.close());
  const github = createFakeGitHub({
    owner: OWNER,
    repo: REPO,
    permissions: { octocat: "admin" },
    installationToken: TOKEN,
  });
  const api = await github.listen();
  cleanups.push(() => api.close());
  // Reads, fixes, then holds the request for its report until told.
  const model = await startFakeAnthropic(fixAddSteps().slice(0, 2), () => {}, {
    holdWhenEmpty: true,
  });
  cleanups.push(() => model.close());
  // gitEnv's TMPDIR is in the test's folder: a process killed with -9 leaves
  // its job's scratch folders there (the next start sweeps only stale ones).
  const env = {
    ...gitEnv,
    APP_ID: "1",
    PRIVATE_KEY,
    WEBHOOK_SECRET: SECRET,
    LOG_LEVEL: "info",
    GHE_HOST: api.url.replace("http://", ""),
    GHE_PROTOCOL: "http",
    ANTHROPIC_API_KEY: "sk-ant-e2e-0123456789abcdef",
    ANTHROPIC_BASE_URL: model.url,
    PATCHWRIGHT_CACHE_DIR: join(tmp.path, "cache"),
    PATCHWRIGHT_BOT_LOGIN: "patchwright[bot]",
    PATCHWRIGHT_DEPS_SCHEDULER: "off",
    PATCHWRIGHT_SHUTDOWN_GRACE_SECONDS: "1",
  };
  return {
    tmp,
    env,
    github,
    model,
    bare: join(tmp.path, `${REPO}.git`),
    gitEnv,
    cloneUrl: gitServer.url(REPO),
  };
}

function mention(cloneUrl: string): Payload {
  const payload = aim(
    examplePayload("issue_comment", "created", (p: Payload) => !p.issue.pull_request),
    cloneUrl,
    { login: "octocat" },
  );
  Object.assign(payload.issue, {
    number: 7,
    title: "add() returns the wrong sum",
    state: "open",
    locked: false,
  });
  Object.assign(payload.comment, { id: 555, body: "@agent fix it" });
  return payload;
}

const wipRefs = (w: World) =>
  git(
    w.bare,
    ["for-each-ref", "--format=%(refname) %(objectname)", "refs/patchwright/wip/"],
    w.gitEnv,
  )
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" ")[1] ?? "");

const comments = (w: World) => (w.github.comments.get(7) ?? []).map((c) => c.body);

function track<P extends ServiceProcess>(p: P): P {
  cleanups.push(() => killProcess(p));
  return p;
}

/** The process's exit, or a failure that shows what it printed. */
async function exitOf(p: ServiceProcess, timeoutMs = 20_000): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`did not exit:\n${p.output()}`)), timeoutMs);
  });
  try {
    return await Promise.race([p.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The job, held with its checkpoint saved: what a crash or a deploy interrupts. */
async function heldAfterCheckpoint(w: World, requests: number): Promise<string> {
  await eventually(
    () => w.model.requests.length === requests && w.model.held() === 1 && wipRefs(w).length === 1,
    "the job to be held after its checkpoint",
  );
  return wipRefs(w)[0] ?? "";
}

/** The end every run must reach: one PR whose branch is the checkpoint, one final comment. */
async function expectFinished(w: World, checkpoint: string, output: () => string): Promise<void> {
  await eventually(
    () => w.github.pulls.length > 0 && comments(w).some((c) => c.includes("/pull/")),
    "the pull request and the final report",
    90_000,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${output()}`);
  });
  expect(w.github.pulls).toHaveLength(1);
  const branch = w.github.pulls[0]?.head.ref ?? "";
  expect(git(w.bare, ["rev-parse", `refs/heads/${branch}`], w.gitEnv)).toBe(checkpoint);
  expect(git(w.bare, ["show", `${branch}:src/add.js`], w.gitEnv)).toContain("a + b");
  expect(wipRefs(w)).toEqual([]);
  const bodies = comments(w);
  expect(bodies).toHaveLength(1);
  expect(bodies[0]).not.toMatch(/Working on|Paused/);
}

describe("jobs survive real crashes and deploys", () => {
  it("npm start killed with -9 mid-job: the next start resumes it from its checkpoint", async () => {
    const w = await world();
    const first = track(await startAppProcess(w.env, w.tmp.path));
    expect(
      await postWebhook(first.port, SECRET, "issue_comment", "e2e-1", mention(w.cloneUrl)),
    ).toBe(200);
    const checkpoint = await heldAfterCheckpoint(w, 3);
    first.child.kill("SIGKILL");
    await first.exited;

    const second = track(await startAppProcess(w.env, w.tmp.path));
    w.model.push(reply("The fix is in place; nothing more to do."));
    await expectFinished(w, checkpoint, second.output);
    // The same delivery, and the same comment under a new id, after the restart: nothing more.
    for (const id of ["e2e-1", "e2e-1-again"])
      expect(await postWebhook(second.port, SECRET, "issue_comment", id, mention(w.cloneUrl))).toBe(
        200,
      );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(w.github.pulls).toHaveLength(1);
    expect(w.model.requests).toHaveLength(4);
    // SIGTERM with nothing running: a clean, quick exit.
    second.child.kill("SIGTERM");
    expect(await exitOf(second)).toBe(0);
  }, 180_000);

  it("App and workers on Redis: a worker killed with -9 is replaced, one stopped by SIGTERM hands its job back", async () => {
    const w = await world();
    const redis: RedisServer = await startRedis();
    cleanups.push(() => redis.stop());
    const shared = { ...w.env, REDIS_URL: redis.url, PATCHWRIGHT_JOB_LOCK_SECONDS: "2" };
    // The App only takes webhooks; each worker has its own cache, as on its own machine.
    const app = track(
      await startAppProcess(
        { ...shared, PATCHWRIGHT_WORKER: "off", PATCHWRIGHT_CACHE_DIR: join(w.tmp.path, "app") },
        w.tmp.path,
      ),
    );
    const worker = (name: string) =>
      startWorkerProcess(
        { ...shared, PATCHWRIGHT_CACHE_DIR: join(w.tmp.path, name) },
        w.tmp.path,
      ).then(track);

    const one = await worker("one");
    expect(
      await postWebhook(app.port, SECRET, "issue_comment", "e2e-r1", mention(w.cloneUrl)),
    ).toBe(200);
    const checkpoint = await heldAfterCheckpoint(w, 3);
    one.child.kill("SIGKILL");
    await one.exited;

    // The next worker finds the stalled job, resumes from the checkpoint, and is held too...
    const two = await worker("two");
    await eventually(
      () => w.model.requests.length === 4 && w.model.held() === 1,
      "the second worker to resume",
      60_000,
    );
    expect(JSON.stringify(w.model.requests[3]?.body)).toContain("interrupted");
    // ...until a deploy stops it: it says so on the thread and exits cleanly.
    two.child.kill("SIGTERM");
    expect(await exitOf(two)).toBe(0);
    await eventually(
      () => comments(w).some((c) => c.includes("Paused")),
      "the paused comment",
      10_000,
    );

    const three = await worker("three");
    w.model.push(reply("The fix is in place; nothing more to do."));
    await expectFinished(w, checkpoint, () => `${app.output()}\n${three.output()}`);
    expect(app.child.exitCode).toBeNull();
  }, 240_000);
});
