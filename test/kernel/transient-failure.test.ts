import { createServer } from "node:net";
import { join } from "node:path";
import { RequestError } from "@octokit/request-error";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChangeResult } from "../../src/change/change.js";
import { defaultConfig } from "../../src/config/schema.js";
import { errorMessage } from "../../src/error-message.js";
import { runGit } from "../../src/git/git-client.js";
import { lastingNetworkTrouble } from "../../src/github/api-errors.js";
import { jobEvents } from "../../src/kernel/events.js";
import {
  isTransientFailure,
  isTransientJobFailure,
  TransientJobError,
  whatFailed,
} from "../../src/kernel/transient-failure.js";
import { type ExecuteOptions, executePlan } from "../../src/thread/execute-plan.js";
import type { ThreadPlan } from "../../src/thread/plan.js";
import type { ThreadServices } from "../../src/thread/services.js";
import { type GitHttpServer, startGitHttpServer } from "../helpers/git-http-server.js";
import {
  type BareRepo,
  createBareRepo,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

const TOKEN = "ghs_transienttoken0123456789abcdefghij";

let tmp: TempDir;
let env: Record<string, string>;
let repo: BareRepo;
let server: GitHttpServer;

beforeEach(async () => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  repo = createBareRepo({ root: tmp.path, env });
  server = await startGitHttpServer({ projectRoot: tmp.path, token: TOKEN, env });
});

afterEach(async () => {
  await server.close();
  tmp.remove();
});

const repoName = () => (repo.dir.split("/").at(-1) ?? "").replace(/\.git$/, "");

/** What our git prints when it asks `url` for its branches: the error, or undefined. */
async function lsRemote(url: string): Promise<unknown> {
  return runGit(tmp.path, ["ls-remote", "--heads", url], { env }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

function apiError(status: number, headers: Record<string, string> = {}, message = "failed") {
  return new RequestError(message, status, {
    request: { method: "GET", url: "https://api.github.com/repos/o/r/issues/7", headers: {} },
    response: { status, url: "", headers, data: {} },
  });
}

describe("which failures a job hands back to the queue", () => {
  it("git meeting a server that answers 503 or is not there at all", async () => {
    server.failNext(1, { how: "503" });
    const unavailable = await lsRemote(server.url(repoName()));
    const refused = await lsRemote(`http://127.0.0.1:${await closedPort()}/demo.git`);
    for (const error of [unavailable, refused]) {
      expect(error).toBeDefined();
      expect(isTransientFailure(error)).toBe(true);
      expect(whatFailed(error)).toBe("The git server did not answer");
      // The same judgement once only the git job's report of it is left.
      expect(isTransientJobFailure({ stage: "workspace", message: errorMessage(error) })).toBe(
        true,
      );
    }
  });

  it("not git refused for a missing token or a missing repository: another try gets the same", async () => {
    const unauthorized = await lsRemote(server.url(repoName()));
    const missing = await lsRemote(`file://${join(tmp.path, "nowhere.git")}`);
    for (const error of [unauthorized, missing]) {
      expect(error).toBeDefined();
      expect(isTransientFailure(error)).toBe(false);
      expect(isTransientJobFailure({ stage: "workspace", message: errorMessage(error) })).toBe(
        false,
      );
    }
    // The agent's or verify's failures are the job's own, whatever they print.
    expect(
      isTransientJobFailure({ stage: "verify", message: "Failed to connect to registry" }),
    ).toBe(false);
  });

  it("GitHub's 5xx, rate limits and broken connections, not its 4xx answers", () => {
    expect(isTransientFailure(apiError(502))).toBe(true);
    expect(whatFailed(apiError(502))).toBe("GitHub did not answer (502)");
    expect(isTransientFailure(apiError(429))).toBe(true);
    const secondary = apiError(
      403,
      { "retry-after": "60" },
      "You have exceeded a secondary rate limit",
    );
    expect(isTransientFailure(secondary)).toBe(true);
    expect(whatFailed(secondary)).toContain("rate limit");
    expect(isTransientFailure(apiError(403))).toBe(false);
    expect(isTransientFailure(apiError(404))).toBe(false);
    expect(isTransientFailure(apiError(422))).toBe(false);
    const reset = new TypeError("fetch failed", {
      cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
    });
    expect(isTransientFailure(reset)).toBe(true);
    expect(whatFailed(reset)).toBe("A connection failed (ECONNRESET)");
    expect(isTransientFailure(new Error("the agent failed"))).toBe(false);
  });

  it("a request that met an untrusted certificate or a proxy's password: lasting, but fixable before the job's next attempt", () => {
    // Octokit's shape of a network failure: a 500 without an answer, the cause's message.
    const unanswered = (message: string, cause: Error) =>
      Object.assign(
        new RequestError(message, 500, {
          request: { method: "GET", url: "https://api.github.com/repos/o/r", headers: {} },
        }),
        { cause },
      );
    const untrusted = unanswered(
      "self-signed certificate in certificate chain",
      Object.assign(new Error("self-signed certificate in certificate chain"), {
        code: "SELF_SIGNED_CERT_IN_CHAIN",
      }),
    );
    expect(lastingNetworkTrouble(untrusted)).toMatchObject({ kind: "tls" });
    // The queue still runs the job again: the CA may be given by then; GitHub cannot be told.
    expect(isTransientFailure(untrusted)).toBe(true);
    // Named by its code alone (a message in other words).
    const expired = unanswered(
      "fetch failed",
      Object.assign(new Error("certificate has expired"), { code: "CERT_HAS_EXPIRED" }),
    );
    expect(lastingNetworkTrouble(expired)).toMatchObject({ kind: "tls", code: "CERT_HAS_EXPIRED" });
    const password = unanswered(
      "Proxy response (407) !== 200 when HTTP Tunneling",
      new Error("Proxy response (407) !== 200 when HTTP Tunneling"),
    );
    expect(lastingNetworkTrouble(password)).toMatchObject({ kind: "proxy-auth" });
    // A connection that broke, or an answer of GitHub's, is no lasting trouble.
    const reset = unanswered(
      "read ECONNRESET",
      Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
    );
    expect(lastingNetworkTrouble(reset)).toBeUndefined();
    expect(lastingNetworkTrouble(apiError(502, {}, "self-signed certificate"))).toBeUndefined();
  });
});

describe("the pipeline when the git job's fetch failed on the transport", () => {
  const failedFetch: ChangeResult = {
    branch: "",
    baseBranch: "main",
    changes: [],
    commits: [],
    commands: [],
    durationMs: 1,
    error: {
      stage: "workspace",
      message:
        "fatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 503",
    },
  };
  const deps = { redact: (text: string) => text } as unknown as ThreadServices;
  const plan = (published: string[]): ThreadPlan & { ports: ExecuteOptions } => ({
    input: {} as ThreadPlan["input"],
    work: { kind: "agent" },
    publish: { kind: "branch" },
    ports: {
      change: async () => failedFetch,
      publish: async (_services, _config, _plan, job) => {
        published.push(job.branch);
        return {};
      },
    },
  });
  const execute = (planned: ReturnType<typeof plan>, options: ExecuteOptions = {}) =>
    executePlan(deps, defaultConfig(), planned, jobEvents(), { ...planned.ports, ...options });

  it("throws it for the caller to retry when asked, without publishing", async () => {
    const published: string[] = [];
    await expect(execute(plan(published), { throwTransient: true })).rejects.toBeInstanceOf(
      TransientJobError,
    );
    expect(published).toEqual([]);
  });

  it("reports it as a failure otherwise (the last attempt, the Action, the CLI)", async () => {
    const result = await execute(plan([]));
    expect(result.conclusion).toBe("failure");
    expect(result.report?.markdown).toContain("503");
  });
});

describe("the checkpoint once the branch is pushed", () => {
  const deps = { redact: (text: string) => text } as unknown as ThreadServices;
  const events: string[] = [];
  const pushed = (): ChangeResult => ({
    branch: "patchwright/issue-7-fix",
    baseBranch: "main",
    changes: [],
    commits: [],
    commands: [],
    durationMs: 1,
    push: { pushed: true, sha: "a".repeat(40), rebased: false },
    dropCheckpoint: async () => {
      events.push("dropped");
    },
  });
  const plan = (publish: () => Promise<undefined>): ThreadPlan & { ports: ExecuteOptions } => ({
    input: {} as ThreadPlan["input"],
    work: { kind: "agent" },
    publish: { kind: "branch" },
    ports: {
      change: async () => pushed(),
      publish: async () => {
        events.push("publish");
        await publish();
        return {};
      },
    },
  });
  const execute = (planned: ReturnType<typeof plan>, options: ExecuteOptions = {}) =>
    executePlan(deps, defaultConfig(), planned, jobEvents(), { ...planned.ports, ...options });
  const githubDown = () => Promise.reject(apiError(502));

  beforeEach(() => {
    events.length = 0;
  });

  it("is deleted after the pull request is opened, not before", async () => {
    await execute(plan(async () => undefined));
    expect(events).toEqual(["publish", "dropped"]);
  });

  it("stays when publishing failed and a retry will come, and goes when the failure is final", async () => {
    const retrying = { throwTransient: true };
    await expect(execute(plan(githubDown), retrying)).rejects.toThrow();
    expect(events).toEqual(["publish"]);
    events.length = 0;
    await expect(execute(plan(githubDown))).rejects.toThrow();
    expect(events).toEqual(["publish", "dropped"]);
  });
});
