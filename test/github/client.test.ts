import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createGitHubAppClients,
  type GitHubAppClientSettings,
  installationToken,
} from "../../src/github/client.js";
import { openOrUpdatePullRequest } from "../../src/github/pulls.js";
import { isTransientFailure } from "../../src/kernel/transient-failure.js";
import { createFakeGitHub, type FakeGitHub } from "../helpers/fake-github.js";
import { makeThrowawayCa } from "../helpers/tls-proxy.js";

const API = "https://api.github.com";
const TOKEN = "ghs_installationtoken0123456789abcdefghij";
const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const silent = { debug() {}, info() {}, warn() {}, error() {} };

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

/** The fake GitHub in nock, and a factory whose waits last a millisecond per second. */
function setup(
  settings: Partial<GitHubAppClientSettings> = {},
  baseUrl = API,
  mintToken?: () => { token: string; expiresAt: string },
) {
  const github = createFakeGitHub({
    owner: "o",
    repo: "r",
    installationToken: TOKEN,
    onePullPerBranch: true,
    ...(mintToken ? { mintToken } : {}),
  });
  github.mountNock(baseUrl);
  const clients = createGitHubAppClients({
    appId: 1,
    privateKey,
    log: silent,
    secondMs: 1,
    ...(baseUrl === API ? {} : { baseUrl }),
    ...settings,
  });
  return { github, clients };
}

const calls = (github: FakeGitHub, method: string, path: RegExp) =>
  github.calls.filter((c) => c.method === method && path.test(c.path));

const comment = { owner: "o", repo: "r", issue_number: 12, body: "Working" };

describe("createGitHubAppClients", () => {
  it("signs in as the App with a JWT and as an installation with its token, on GHE too", async () => {
    const { github, clients } = setup({}, "https://ghe.example.com/api/v3");
    const { data } = await clients.app().rest.apps.getAuthenticated();
    expect(data).toMatchObject({ slug: "patchwright" });
    const octokit = clients.installation(42);
    await octokit.rest.issues.createComment(comment);
    expect(await installationToken(octokit)).toBe(TOKEN);
    expect(github.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      "GET /app",
      "POST /app/installations/42/access_tokens",
      "POST /repos/o/r/issues/12/comments",
    ]);
    expect(github.calls[0]?.authorization).toMatch(/^bearer \S+\.\S+\.\S+$/);
    expect(github.calls[1]?.authorization).toMatch(/^bearer /);
    expect(github.calls[2]?.authorization).toBe(`token ${TOKEN}`);
  });

  it("hands git the cached token until ten minutes before its end, then a new one", async () => {
    // GitHub's tokens last an hour; @octokit/auth-app keeps one for 59 minutes.
    const clock = { now: Date.parse("2026-12-06T12:00:00Z") };
    let minted = 0;
    const { github, clients } = setup({}, API, () => {
      minted += 1;
      return {
        token: `ghs_minted${minted}`.padEnd(40, "x"),
        expiresAt: new Date(clock.now + 60 * 60_000).toISOString(),
      };
    });
    const octokit = clients.installation(42);
    const now = () => clock.now;
    const first = await installationToken(octokit, now);
    clock.now += 49 * 60_000;
    expect(await installationToken(octokit, now)).toBe(first);
    clock.now += 2 * 60_000;
    const renewed = await installationToken(octokit, now);
    expect([first, renewed]).toEqual([
      "ghs_minted1".padEnd(40, "x"),
      "ghs_minted2".padEnd(40, "x"),
    ]);
    // The renewed token is the one the API calls use from then on, and it is kept.
    await octokit.rest.issues.createComment(comment);
    expect(await installationToken(octokit, now)).toBe(renewed);
    expect(calls(github, "POST", /access_tokens$/)).toHaveLength(2);
    const commented = github.calls.find((c) => c.method === "POST" && /comments$/.test(c.path));
    expect(commented?.authorization).toBe(`token ${renewed}`);
  });

  it("waits out a secondary rate limit on a write (403, retry-after: 0) and retries", async () => {
    const { github, clients } = setup();
    github.inject({
      method: "POST",
      path: /\/issues\/12\/comments$/,
      status: 403,
      headers: { "retry-after": "0" },
      body: { message: "You have exceeded a secondary rate limit. Please wait a few minutes." },
    });
    const { data } = await clients.installation(42).rest.issues.createComment(comment);
    expect(data.body).toBe("Working");
    expect(calls(github, "POST", /comments$/)).toHaveLength(2);
    expect(github.comments.get(12)).toHaveLength(1);
  });

  it("waits for the reset of a primary rate limit (429, x-ratelimit-remaining: 0)", async () => {
    const { github, clients } = setup();
    github.inject({
      method: "GET",
      path: /\/pulls$/,
      status: 429,
      headers: {
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(Math.floor(Date.now() / 1000)),
      },
      body: { message: "API rate limit exceeded for installation ID 42." },
    });
    const { data } = await clients.installation(42).rest.pulls.list({ owner: "o", repo: "r" });
    expect(data).toEqual([]);
    expect(calls(github, "GET", /\/pulls$/)).toHaveLength(2);
  });

  it("fails at once when a rate limit asks for too long a wait, and gives up after a few", async () => {
    const { github, clients } = setup({ maxRateLimitWaitSeconds: 60, rateLimitRetries: 2 });
    const limited = {
      method: "GET",
      path: /\/pulls$/,
      status: 403,
      body: { message: "You have exceeded a secondary rate limit." },
    };
    github.inject({ ...limited, headers: { "retry-after": "3600" } });
    const octokit = clients.installation(42);
    await expect(octokit.rest.pulls.list({ owner: "o", repo: "r" })).rejects.toMatchObject({
      status: 403,
    });
    expect(calls(github, "GET", /\/pulls$/)).toHaveLength(1);

    github.inject({ ...limited, headers: { "retry-after": "1" }, times: 10 });
    await expect(octokit.rest.pulls.list({ owner: "o", repo: "r" })).rejects.toMatchObject({
      status: 403,
    });
    expect(calls(github, "GET", /\/pulls$/)).toHaveLength(1 + 3);
  });

  it("retries a 502 and a broken connection, a bounded number of times", async () => {
    const { github, clients } = setup({ retries: 2 });
    const octokit = clients.installation(42);
    github.inject({ method: "POST", path: /\/comments$/, status: 502 });
    await octokit.rest.issues.createComment(comment);
    github.inject({ method: "GET", path: /\/pulls$/, drop: true });
    await octokit.rest.pulls.list({ owner: "o", repo: "r" });
    expect(calls(github, "POST", /comments$/)).toHaveLength(2);
    expect(calls(github, "GET", /\/pulls$/)).toHaveLength(2);

    github.inject({ method: "GET", path: /\/pulls$/, status: 503, times: 10 });
    await expect(octokit.rest.pulls.list({ owner: "o", repo: "r" })).rejects.toMatchObject({
      status: 503,
    });
    expect(calls(github, "GET", /\/pulls$/)).toHaveLength(2 + 3);
  });

  it("does not retry at once an API whose TLS certificate nobody here trusts; the job goes back to the queue", async () => {
    // A network that inspects HTTPS with a CA this process was not told of.
    const dir = await mkdtemp(join(tmpdir(), "pw-client-ca-"));
    const leaf = await (await makeThrowawayCa(dir)).issue(["127.0.0.1"]);
    let handshakes = 0;
    const server = createHttpsServer(leaf, (_req, res) => res.end("{}"));
    server.on("tlsClientError", () => handshakes++);
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    nock.enableNetConnect("127.0.0.1");
    try {
      const clients = createGitHubAppClients({
        appId: 1,
        privateKey,
        log: silent,
        secondMs: 1,
        retries: 2,
        baseUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      });
      const failed = await clients
        .app()
        .rest.apps.getAuthenticated()
        .catch((error: unknown) => error);
      expect(failed).toMatchObject({ status: 500 });
      expect((failed as Error).message).toMatch(/certificate/);
      // Asked once: a try seconds later meets the same certificate...
      expect(handshakes).toBe(1);
      // ...while the job runs again later, when the CA may have been given (or GHE's renewed).
      expect(isTransientFailure(failed)).toBe(true);
    } finally {
      nock.disableNetConnect();
      await new Promise((done) => server.close(done));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("does not retry a 404 or a 422", async () => {
    const { github, clients } = setup();
    const octokit = clients.installation(42);
    await expect(
      octokit.rest.repos.getContent({ owner: "o", repo: "r", path: "missing.md" }),
    ).rejects.toMatchObject({ status: 404 });
    github.inject({ method: "POST", path: /\/pulls$/, status: 422, body: { message: "Invalid" } });
    await expect(
      octokit.rest.pulls.create({ owner: "o", repo: "r", head: "x", base: "main" }),
    ).rejects.toMatchObject({ status: 422 });
    expect(calls(github, "GET", /\/contents\//)).toHaveLength(1);
    expect(calls(github, "POST", /\/pulls$/)).toHaveLength(1);
  });

  it("spaces one installation's writes without holding up another installation's", async () => {
    // A second of spacing lasts 300 ms here: long enough to see who waited.
    const { github, clients } = setup({ secondMs: 300 });
    const created = await clients.installation(44).rest.issues.createComment(comment);
    const [one, two] = [clients.installation(42), clients.installation(43)];
    await Promise.all([installationToken(one), installationToken(two)]);
    const done: string[] = [];
    const edit = (octokit: typeof one, name: string) =>
      octokit.rest.issues
        .updateComment({ owner: "o", repo: "r", comment_id: created.data.id, body: name })
        .then(() => done.push(name));
    const first = edit(one, "first");
    const second = edit(one, "second");
    await first;
    // "second" now waits out installation 42's spacing; 43 has a clock of its own.
    await edit(two, "other");
    await second;
    expect(done).toEqual(["first", "other", "second"]);
    expect(calls(github, "PATCH", /comments\/\d+$/)).toHaveLength(3);
  });

  it("makes one pull request when its creation answered 502 and the retry hears it exists", async () => {
    const { github, clients } = setup();
    github.inject({ method: "POST", path: /\/pulls$/, status: 502, afterHandling: true });
    const result = await openOrUpdatePullRequest(clients.installation(42), {
      owner: "o",
      repo: "r",
      head: "agent/issue-12",
      base: "main",
      title: "Fix the pager (#12)",
      body: "Closes #12",
      draft: false,
    });
    expect(result).toMatchObject({ number: 100, created: true });
    expect(github.pulls).toHaveLength(1);
    expect(calls(github, "POST", /\/pulls$/)).toHaveLength(2);
  });
});
