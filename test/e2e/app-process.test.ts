import { createHmac } from "node:crypto";
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
import { createFakeGitHub } from "../helpers/fake-github.js";
import { type GitHttpServer, startGitHttpServer } from "../helpers/git-http-server.js";
import { createBareRepo, gitTestEnv, makeTempDir, type TempDir } from "../helpers/git-repos.js";
import { eventually, killProcess, startAppProcess } from "../helpers/service-process.js";
import { makeThrowawayCa, startInspectingProxy } from "../helpers/tls-proxy.js";

const TOKEN = "ghs_e2etoken0123456789abcdefghijklmnopq";
const SECRET = "webhook-secret-for-tests";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the App as a process (npm start), end to end", () => {
  it("takes a signed webhook and opens a PR on a fake GitHub with the branch in a repository served over HTTP, behind a company proxy", async () => {
    const tmp: TempDir = makeTempDir("pw-e2e-app-");
    cleanups.push(() => tmp.remove());
    const env = gitTestEnv(join(tmp.path, "home"));
    createBareRepo({
      root: tmp.path,
      env,
      name: REPO,
      files: {
        ...ADD_BUG_FILES,
      },
    });
    const gitServer: GitHttpServer = await startGitHttpServer({
      projectRoot: tmp.path,
      token: TOKEN,
      env,
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
    const model: FakeAnthropic = await startFakeAnthropic(fixAddSteps());
    cleanups.push(() => model.close());
    // A company network: GitHub and the model at their HTTPS names, reached
    // only through a proxy that asks for a password and inspects TLS with the
    // company's CA (which Node 20's fetch would not use by itself).
    const ca = await makeThrowawayCa(tmp.path);
    const proxy = await startInspectingProxy({
      ca,
      routes: { "github.corp.test:443": api.url, "api.anthropic.com:443": model.url },
      credentials: { user: "corp", password: "proxy-pass-e2e" },
    });
    cleanups.push(() => proxy.close());
    const proxyUrl = proxy.url.replace("http://", "http://corp:proxy-pass-e2e@");

    const app = await startAppProcess(
      {
        ...env,
        APP_ID: "1",
        PRIVATE_KEY,
        WEBHOOK_SECRET: SECRET,
        LOG_LEVEL: "warn",
        GHE_HOST: "github.corp.test",
        GHE_PROTOCOL: "https",
        HTTPS_PROXY: proxyUrl,
        HTTP_PROXY: proxyUrl,
        // The repository's git server is on this machine.
        NO_PROXY: "127.0.0.1,localhost",
        NODE_EXTRA_CA_CERTS: ca.certPath,
        ANTHROPIC_API_KEY: "sk-ant-e2e-0123456789abcdef",
        PATCHWRIGHT_CACHE_DIR: join(tmp.path, "cache"),
        PATCHWRIGHT_BOT_LOGIN: "patchwright[bot]",
      },
      tmp.path,
    );
    // Killed and waited for: a SIGTERM left it shutting down for a minute after the test.
    cleanups.push(() => killProcess(app));
    const port = app.port;

    const payload = aim(
      examplePayload("issue_comment", "created", (p: Payload) => !p.issue.pull_request),
      gitServer.url(REPO),
      {
        login: "octocat",
      },
    );
    Object.assign(payload.issue, {
      number: 7,
      title: "add() returns the wrong sum",
      state: "open",
      locked: false,
    });
    Object.assign(payload.comment, { id: 555, body: "@agent fix it" });
    const body = JSON.stringify(payload);
    const post = (delivery: string, signature?: string) =>
      fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "issue_comment",
          "x-github-delivery": delivery,
          ...(signature === undefined ? {} : { "x-hub-signature-256": signature }),
        },
        body,
      });
    const signed = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
    // Forged: no signature, or one made with another secret. Neither starts anything.
    const forged = `sha256=${createHmac("sha256", "guessed").update(body).digest("hex")}`;
    for (const attempt of [await post("e2e-forged-1"), await post("e2e-forged-2", forged)]) {
      expect(attempt.status).toBeGreaterThanOrEqual(400);
      expect(attempt.status).toBeLessThan(500);
    }
    // Signed, but missing what the event must carry: a 400 that says nothing more.
    const malformedDeliveries: Array<[string, unknown]> = [
      ["issue_comment", { action: "created", comment: { id: 9 } }],
      ["push", { ref: "refs/heads/main", installation: { id: 1 } }],
    ];
    for (const [event, payload] of malformedDeliveries) {
      const malformedBody = JSON.stringify(payload);
      const malformed = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": event,
          "x-github-delivery": `e2e-malformed-${event}`,
          "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(malformedBody).digest("hex")}`,
        },
        body: malformedBody,
      });
      expect(malformed.status, event).toBe(400);
      const answer = await malformed.text();
      expect(answer).toContain("malformed");
      expect(answer).not.toMatch(/TriggerPayload|issue|repository|push|at /);
    }
    await eventually(
      () => (app.output().match(/malformed webhook payload/g) ?? []).length >= 2,
      "the log lines",
      5_000,
    );
    // Anything else it would log (a second report, a stack) comes within moments.
    await new Promise((r) => setTimeout(r, 500));
    expect(app.output().match(/malformed webhook payload/g)).toHaveLength(2);
    expect(app.output()).not.toContain("MalformedPayload");
    expect(app.output()).not.toContain("unreadable push payload");
    const mark = app.output().length;
    const started = Date.now();
    const response = await post("e2e-1", signed);
    expect(response.status).toBe(200);
    // Answered before the job ran: the model has not been asked anything yet.
    expect(Date.now() - started).toBeLessThan(5_000);

    await eventually(
      () =>
        github.pulls.length > 0 || /job failed|could not handle/i.test(app.output().slice(mark)),
      "the pull request",
      120_000,
    );
    const [pull] = github.pulls;
    expect(pull?.head.ref, app.output()).toBe("agent/issue-7-add-returns-the-wrong-sum");
    expect(pull?.body).toContain("Closes #7");
    expect(
      gitServer.requests.some((r) => r.path.endsWith("/git-receive-pack") && r.authorized),
    ).toBe(true);
    expect(gitServer.requests.every((r) => r.authorized || r.status === 401)).toBe(true);
    expect(github.reactions.map((r) => r.content)).toContain("eyes");
    expect(model.requests.length).toBe(fixAddSteps().length);
    expect(new Set(proxy.asked)).toEqual(
      new Set(["github.corp.test:443", "api.anthropic.com:443"]),
    );
    expect(proxy.refused).toBe(0);

    // The same comment replayed under a fresh delivery id starts nothing more.
    expect((await post("e2e-1-replayed", signed)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(github.pulls).toHaveLength(1);
    expect(model.requests.length).toBe(fixAddSteps().length);
    expect(github.reactions.filter((r) => r.content === "eyes")).toHaveLength(1);
  }, 180_000);
});
