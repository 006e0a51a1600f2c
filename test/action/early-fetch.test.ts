import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type EarlyFetch, startEarlyFetch } from "../../src/action/early-fetch.js";
import { startGitHttpServer } from "../helpers/git-http-server.js";
import {
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

/**
 * The entry starts the repository's fetch before the bundle loads
 * (src/action/early-fetch.ts), from the event's clone URL and the workflow's
 * token; only for a run that will fetch that with that token.
 */

const TOKEN = "ghs_earlyfetch0123456789abcdefghijklmnop";

const dirs: TempDir[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const dir of dirs.splice(0)) dir.remove();
});

async function world() {
  const tmp = makeTempDir("pw-early-fetch-");
  dirs.push(tmp);
  const env = gitTestEnv(join(tmp.path, "home"));
  createBareRepo({ root: tmp.path, env, name: "demo" });
  const server = await startGitHttpServer({ projectRoot: tmp.path, token: TOKEN, env });
  closers.push(() => server.close());
  const runnerTemp = join(tmp.path, "runner-temp");
  let events = 0;
  const event = (payload: unknown) => {
    const path = join(tmp.path, `event-${++events}.json`);
    writeFileSync(path, JSON.stringify(payload));
    return path;
  };
  const repository = { clone_url: server.url("demo"), size: 12, full_name: "octo-org/demo" };
  const runnerEnv = (payload: unknown, inputs: Record<string, string> = {}) => ({
    ...env,
    GITHUB_EVENT_NAME: "workflow_dispatch",
    GITHUB_EVENT_PATH: event(payload),
    RUNNER_TEMP: runnerTemp,
    INPUT_GITHUB_TOKEN: TOKEN,
    INPUT_MODE: "auto",
    ...inputs,
  });
  return { env, server, runnerTemp, repository, runnerEnv };
}

describe("the entry's early fetch", () => {
  it("fetches the event's repository with the workflow's token into the run's cache", async () => {
    const w = await world();
    const early = startEarlyFetch(w.runnerEnv({ repository: w.repository })) as EarlyFetch;
    expect(early).toMatchObject({
      cloneUrl: w.repository.clone_url,
      token: TOKEN,
      repoSizeKb: 12,
      cacheDir: join(w.runnerTemp, "patchwright", "cache"),
    });
    await early.underway;
    const mirror = await early.mirror;
    expect(mirror?.mirrorDir.startsWith(early.cacheDir)).toBe(true);
    expect(git(mirror?.mirrorDir ?? "", ["rev-parse", "refs/remotes/origin/main"], w.env)).toMatch(
      /^[0-9a-f]{40}$/,
    );
    expect(w.server.requests.every((request) => request.authorized)).toBe(true);
  });

  it("starts git before this thread's next turn: nothing on its way waits for the thread pool", async () => {
    // The entry loads the bundle once the fetch is under way (run.ts), and an
    // asynchronous file call on the way (the lock, the new mirror's files)
    // waits for each of the thread's turns: ~20 of them put git 15-20 ms later.
    const w = await world();
    const early = startEarlyFetch(w.runnerEnv({ repository: w.repository })) as EarlyFetch;
    let underway = false;
    void early.underway.then(() => {
      underway = true;
    });
    await new Promise((turn) => setImmediate(turn));
    expect(underway).toBe(true);
    // Under way means git's fetch, which then ends with the mirror made.
    const mirror = await early.mirror;
    expect(mirror?.created).toBe(true);
    expect(w.server.requests.length).toBeGreaterThan(0);
  });

  it("stops when the run does not use it", async () => {
    const w = await world();
    const early = startEarlyFetch(w.runnerEnv({ repository: w.repository })) as EarlyFetch;
    early.stop();
    expect(await early.mirror).toBeNull();
  });

  it("is not started for a run that would fetch something else, or not with this token", async () => {
    const w = await world();
    const fork = {
      repository: w.repository,
      pull_request: {
        head: { repo: { full_name: "someone/demo" } },
        base: { repo: { full_name: "octo-org/demo" } },
      },
    };
    const cases: Array<[string, Record<string, string | undefined>]> = [
      [
        "an App's token, made through the API",
        w.runnerEnv({ repository: w.repository }, { INPUT_APP_ID: "42" }),
      ],
      ["deps mode", w.runnerEnv({ repository: w.repository }, { INPUT_MODE: "deps" })],
      ["no token", w.runnerEnv({ repository: w.repository }, { INPUT_GITHUB_TOKEN: " " })],
      ["a pull request from a fork", w.runnerEnv(fork)],
      ["a schedule's event without a repository", w.runnerEnv({ schedule: "0 5 * * *" })],
      [
        "no event file",
        {
          ...w.runnerEnv({ repository: w.repository }),
          GITHUB_EVENT_PATH: "/nonexistent/event.json",
        },
      ],
    ];
    for (const [name, env] of cases) expect(startEarlyFetch(env), name).toBeUndefined();
    expect(w.server.requests).toEqual([]);
  });
});
