import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startEarlyReads } from "../../src/action/early-reads.js";
import { httpFetch } from "../../src/github/rest/http-fetch.js";
import { makeTempDir, type TempDir } from "../helpers/git-repos.js";
import { reply } from "../helpers/model-script.js";
import {
  type ActionWorld,
  API_KEY,
  commentPayload,
  eventPayload,
  runAction,
  startWorld,
  TOKEN,
  useBundle,
} from "./harness.js";

/**
 * The API reads an issue comment's job begins with, sent by the entry
 * beside the early fetch (src/action/early-reads.ts), and taken by the
 * job's own requests for the same URLs (http-fetch.ts `readEarly`).
 */

const bundle = useBundle();

let world: ActionWorld | undefined;
const dirs: TempDir[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await world?.close();
  world = undefined;
  for (const dir of dirs.splice(0)) dir.remove();
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/**
 * A preload that notes each request as node:http makes it, and whether the
 * early-fetch chunk (the entry's early work) is on the stack that made it.
 */
const REQUEST_PROBE = [
  'import dc from "node:diagnostics_channel";',
  'const { appendFileSync } = process.getBuiltinModule("node:fs");',
  "Error.stackTraceLimit = 60;",
  "dc.subscribe('http.client.request.created', ({ request }) => {",
  "  const early = /[\\/]early-fetch-[^/]*\\.js/.test(new Error().stack) ? 'early' : 'job';",
  "  appendFileSync(process.env.PW_PROBE_OUT, [early, request.method, request.path].join(' ') + '\\n');",
  "});",
].join("\n");

async function probedRun(w: ActionWorld, options: Omit<Parameters<typeof runAction>[2], "env">) {
  const dir = makeTempDir("pw-early-reads-");
  dirs.push(dir);
  const probe = join(dir.path, "probe.mjs");
  const out = join(dir.path, "requests.txt");
  writeFileSync(probe, REQUEST_PROBE);
  writeFileSync(out, "");
  const run = await runAction(bundle.entry, w, {
    ...options,
    env: { NODE_OPTIONS: `--import=${pathToFileURL(probe).href}`, PW_PROBE_OUT: out },
  });
  const requests = readFileSync(out, "utf8").trim().split("\n").filter(Boolean);
  return { run, requests };
}

async function probedCommentRun(body: string) {
  world = await startWorld({ steps: [reply("Nothing to change."), reply("Nothing to change.")] });
  return probedRun(world, {
    event: "issue_comment",
    payload: commentPayload(world, "octocat", body),
    inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
  });
}

/** Whether fake GitHub was asked for `path` (with its query) exactly once. */
function seenOnce(w: ActionWorld, path: string): boolean {
  const [route = "", query = ""] = path.split("?");
  const seen = w.github.calls.filter(
    (c) => c.method === "GET" && c.path === route && c.query.toString() === query,
  );
  return seen.length === 1;
}

const READS = [
  "/repos/octo-org/demo/issues/7/comments?per_page=100",
  "/repos/octo-org/demo/pulls?state=open&per_page=100",
  "/repos/octo-org/demo/collaborators/octocat/permission",
  "/repos/octo-org/demo/contents/.github%2Fpatchwright.yml?ref=main",
];

/** A pull request's first reads; its own (`/pulls/N`) only when the payload has not got it. */
function pullRequestReads(number: number, readsPull: boolean): string[] {
  const at = "/repos/octo-org/demo";
  return [
    `${at}/issues/${number}/comments?per_page=100`,
    `${at}/pulls/${number}/reviews?per_page=100`,
    `${at}/pulls/${number}/comments?per_page=100`,
    READS[2] ?? "",
    READS[3] ?? "",
    ...(readsPull ? [`${at}/pulls/${number}`] : []),
    `${at}/pulls/${number}/files?per_page=100`,
  ];
}

/** The entry sent exactly `reads`, in order, and the job's own requests took each answer: GitHub saw each once. */
function expectReadEarlyOnce(w: ActionWorld, requests: string[], reads: string[]): void {
  expect(requests.filter((line) => line.startsWith("early "))).toEqual(
    reads.map((path) => `early GET ${path}`),
  );
  for (const path of reads) expect(seenOnce(w, path), path).toBe(true);
}

describe("the bundled Action on an issue comment", () => {
  it("sends the job's first API reads from its entry, before the job's code loads, and asks GitHub each once", async () => {
    const { run, requests } = await probedCommentRun("@agent tidy up");
    expect(run.code, run.log).toBe(0);
    // The job's own requests for them took the early answers: GitHub saw each once.
    expectReadEarlyOnce(world as ActionWorld, requests, READS);
    // ...and the job went on from them as ever: its comment, its first model request.
    expect(
      requests.some((line) => line === "job POST /repos/octo-org/demo/issues/7/comments"),
    ).toBe(true);
    expect(requests.some((line) => line.endsWith("POST /v1/messages"))).toBe(true);
  });

  it("sends a pull request comment's first seven reads from its entry, each asked of GitHub once", async () => {
    world = await startWorld({ steps: [reply("Nothing to change.")] });
    const payload = commentPayload(world, "octocat", "@agent tidy up");
    Object.assign(payload.issue, {
      pull_request: { url: `${world.apiUrl}/repos/octo-org/demo/pulls/7` },
    });
    // The fake has no pull request 7: the job stops after its reads, which is all this asks.
    const { requests } = await probedRun(world, {
      event: "issue_comment",
      payload,
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
    });
    expectReadEarlyOnce(world, requests, pullRequestReads(7, true));
  });

  it.each([
    ["pull_request_review_comment", "created"],
    ["pull_request_review", "submitted"],
  ])(
    "sends a %s's first six reads from its entry, each asked of GitHub once",
    async (event, action) => {
      world = await startWorld({ steps: [reply("Nothing to change.")] });
      const payload = eventPayload(world, event, action, "octocat");
      const words = (payload.comment ?? payload.review) as { body: string };
      words.body = "@agent tidy up";
      const number = (payload.pull_request as { number: number }).number;
      const { requests } = await probedRun(world, {
        event,
        payload,
        inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
      });
      // The payload holds the pull request itself: not read.
      expectReadEarlyOnce(world, requests, pullRequestReads(number, false));
    },
  );

  it("sends a pull_request prompt's six reads from its entry, each asked of GitHub once", async () => {
    world = await startWorld({ steps: [reply("Nothing to change.")] });
    const branch = "feature/docs";
    world.repo.push({ branch, files: { "docs.md": "# Docs\n" }, message: "docs" });
    const payload = eventPayload(world, "pull_request", "opened", "octocat");
    const pull = payload.pull_request as Record<string, Record<string, unknown>>;
    Object.assign(pull, { number: 12, title: "Docs", body: "", state: "open", locked: false });
    // From a branch of the repository itself: a fork's pull request is left alone.
    const repo = { ...(pull.base?.repo as object), full_name: "octo-org/demo" };
    pull.base = { ...pull.base, ref: "main", repo };
    pull.head = { ...pull.head, ref: branch, sha: world.repo.sha(branch), repo };
    const { run, requests } = await probedRun(world, {
      event: "pull_request",
      payload,
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, prompt: "Tidy up" },
    });
    expect(run.code, run.log).toBe(0);
    expectReadEarlyOnce(world, requests, pullRequestReads(12, false));
    expect(requests.some((line) => line.endsWith("POST /v1/messages"))).toBe(true);
  });

  it("sends a workflow_dispatch's config read from its entry, and asks GitHub once", async () => {
    world = await startWorld({ steps: [reply("Nothing to change."), reply("Nothing to change.")] });
    const { requests, run } = await probedRun(world, {
      event: "workflow_dispatch",
      payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, prompt: "Tidy up" },
    });
    expect(run.code, run.log).toBe(0);
    const config = READS[3] ?? "";
    expectReadEarlyOnce(world, requests, [config]);
  });

  it.each([
    ["a new issue naming the phrase", "opened"],
    ["the default label added to an issue", "labeled"],
  ])("sends the four reads of %s from its entry, each asked of GitHub once", async (_, action) => {
    world = await startWorld({ steps: [reply("Nothing to change.")] });
    const payload = eventPayload(world, "issues", action, "octocat");
    Object.assign(payload.issue, {
      number: 7,
      body: "@agent tidy up",
      state: "open",
      locked: false,
    });
    if (action === "labeled") payload.label = { ...payload.label, name: "agent" };
    const { run, requests } = await probedRun(world, {
      event: "issues",
      payload,
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
    });
    expect(run.code, run.log).toBe(0);
    expectReadEarlyOnce(world, requests, READS);
    expect(requests.some((line) => line.endsWith("POST /v1/messages"))).toBe(true);
  });

  it("sends none for a comment that does not name the trigger phrase", async () => {
    const { run, requests } = await probedCommentRun("thanks, looks good");
    expect(run.code, run.log).toBe(0);
    expect(requests.filter((line) => line.startsWith("early "))).toEqual([]);
  });
});

/** A loopback API counting what it is asked; `fail` answers by breaking the connection. */
async function countingApi(fail = () => false) {
  const asked: Array<{ path: string; authorization: string | undefined }> = [];
  const server = createServer((req, res) => {
    asked.push({ path: req.url ?? "", authorization: req.headers.authorization });
    if (fail()) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ asked: asked.length }));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

const payload = (changes: Record<string, unknown> = {}) => ({
  action: "created",
  issue: { number: 7 },
  comment: { body: "@Agent fix it" },
  sender: { login: "octocat", type: "User" },
  repository: { full_name: "o/r", default_branch: "trunk" },
  ...changes,
});

/** pull_request events the job does not run the prompt on (or has no prompt for). */
function pullRequestCases(
  env: Record<string, string>,
): Array<[string, Record<string, string | undefined>, unknown]> {
  const prompted = { ...env, GITHUB_EVENT_NAME: "pull_request", INPUT_PROMPT: "Tidy up" };
  const repo = { full_name: "o/r" };
  const pull = (action: string, head: unknown = { repo }) =>
    payload({ action, pull_request: { number: 7, head, base: { repo } } });
  return [
    ["a pull request without a prompt", { ...prompted, INPUT_PROMPT: " " }, pull("opened")],
    ["a closed pull request", prompted, pull("closed")],
    ["a fork's pull request", prompted, pull("opened", { repo: { full_name: "fork/r" } })],
    ["a pull request from a deleted fork", prompted, pull("synchronize", { repo: null })],
  ];
}

describe("startEarlyReads", () => {
  it("reads what the job asks first, with the workflow's token and the input's config path", async () => {
    const api = await countingApi();
    const env = {
      INPUT_GITHUB_TOKEN: "ghs_early",
      INPUT_CONFIG_PATH: "ci/bot.yml",
      GITHUB_EVENT_NAME: "issue_comment",
      GITHUB_API_URL: `${api.url}/`,
    };
    const reads = startEarlyReads(env, payload());
    expect(reads.urls).toEqual([
      `${api.url}/repos/o/r/issues/7/comments?per_page=100`,
      `${api.url}/repos/o/r/pulls?state=open&per_page=100`,
      `${api.url}/repos/o/r/collaborators/octocat/permission`,
      `${api.url}/repos/o/r/contents/ci%2Fbot.yml?ref=trunk`,
    ]);
    // run.ts loads the rest of the bundle once they have left.
    await reads.sent;
    const headers = { accept: "application/vnd.github.v3+json", authorization: "token ghs_early" };
    const answers = await Promise.all(
      [
        "/repos/o/r/issues/7/comments?per_page=100",
        "/repos/o/r/pulls?state=open&per_page=100",
        "/repos/o/r/collaborators/octocat/permission",
        "/repos/o/r/contents/ci%2Fbot.yml?ref=trunk",
      ].map((path) => httpFetch(`${api.url}${path}`, { headers })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    // The four requests took the early answers: the API was asked four times, not eight.
    expect(api.asked).toHaveLength(4);
    expect(api.asked.every((a) => a.authorization === "token ghs_early")).toBe(true);
    // An answer is taken once: asked again, the API is asked again.
    await httpFetch(`${api.url}/repos/o/r/issues/7/comments?per_page=100`, { headers });
    expect(api.asked).toHaveLength(5);
    // Never by a request with another token.
    await httpFetch(`${api.url}/repos/o/r/pulls?state=open&per_page=100`, {
      headers: { ...headers, authorization: "token ghs_other" },
    });
    expect(api.asked.at(-1)).toEqual({
      path: "/repos/o/r/pulls?state=open&per_page=100",
      authorization: "token ghs_other",
    });
  });

  it("asks again for an early read that failed", async () => {
    let failures = 1;
    const api = await countingApi(() => failures-- > 0);
    const env = {
      INPUT_GITHUB_TOKEN: "ghs_early",
      GITHUB_EVENT_NAME: "issue_comment",
      GITHUB_API_URL: api.url,
    };
    const [url = ""] = startEarlyReads(env, payload()).urls;
    const answer = await httpFetch(url, {
      headers: { accept: "application/vnd.github.v3+json", authorization: "token ghs_early" },
    });
    expect(answer.status).toBe(200);
    expect(api.asked.filter((a) => a.path.includes("/comments"))).toHaveLength(2);
  });

  it("reads nothing where the job might not ask", async () => {
    const env = {
      INPUT_GITHUB_TOKEN: "ghs_early",
      GITHUB_EVENT_NAME: "issue_comment",
      // Nothing listens here: a read sent would fail, not be counted; the URLs say it all.
      GITHUB_API_URL: "http://127.0.0.1:9",
    };
    const cases: Array<[string, Record<string, string | undefined>, unknown]> = [
      ["a closed issue", env, payload({ issue: { number: 7, state: "closed" } })],
      [
        "a review without words",
        { ...env, GITHUB_EVENT_NAME: "pull_request_review" },
        {
          ...payload({ action: "submitted" }),
          pull_request: { number: 7 },
          review: { body: null },
        },
      ],
      [
        "a review comment on a closed pull request",
        { ...env, GITHUB_EVENT_NAME: "pull_request_review_comment" },
        payload({ pull_request: { number: 7, state: "closed" } }),
      ],
      ["a locked issue", env, payload({ issue: { number: 7, locked: true } })],
      ["an edited comment", env, payload({ action: "edited" })],
      ["a bot's comment", env, payload({ sender: { login: "ci[bot]", type: "Bot" } })],
      ["no trigger phrase", env, payload({ comment: { body: "thanks" } })],
      ["another trigger phrase", { ...env, INPUT_TRIGGER_PHRASE: "@bot" }, payload()],
      ["an App's token", { ...env, INPUT_APP_ID: "1", INPUT_PRIVATE_KEY: "k" }, payload()],
      ["review mode", { ...env, INPUT_MODE: "review" }, payload()],
      ["another event", { ...env, GITHUB_EVENT_NAME: "issues" }, payload()],
      ...pullRequestCases(env),
      [
        "a label other than the default one",
        { ...env, GITHUB_EVENT_NAME: "issues" },
        payload({ action: "labeled", issue: { number: 7 }, label: { name: "bug" } }),
      ],
      [
        "the default label on a closed issue",
        { ...env, GITHUB_EVENT_NAME: "issues" },
        payload({
          action: "labeled",
          issue: { number: 7, state: "closed" },
          label: { name: "agent" },
        }),
      ],
      [
        "a new pull request",
        { ...env, GITHUB_EVENT_NAME: "issues" },
        payload({ action: "opened", issue: { number: 7, body: "@agent fix", pull_request: {} } }),
      ],
      [
        "a new issue without the phrase",
        { ...env, GITHUB_EVENT_NAME: "issues" },
        payload({ action: "opened", issue: { number: 7, body: "it breaks" } }),
      ],
      ["no token", { ...env, INPUT_GITHUB_TOKEN: "" }, payload()],
      ["no payload", env, undefined],
      [
        "a workflow_dispatch without a prompt",
        { ...env, GITHUB_EVENT_NAME: "workflow_dispatch" },
        payload(),
      ],
    ];
    for (const [name, caseEnv, casePayload] of cases) {
      expect(startEarlyReads(caseEnv, casePayload).urls, name).toEqual([]);
    }
    const refused = startEarlyReads({ ...env, INPUT_MODE: "auto" }, payload());
    expect(refused.urls).toHaveLength(4);
    // Reads that could not leave count as gone: run.ts does not wait on them.
    await refused.sent;
    // A pull request's own prompt reads what a review comment's words do.
    const repo = { full_name: "o/r" };
    const pullRequest = { number: 7, head: { repo }, base: { repo } };
    expect(
      startEarlyReads(
        { ...env, GITHUB_EVENT_NAME: "pull_request", INPUT_PROMPT: "Tidy up" },
        payload({ action: "ready_for_review", pull_request: pullRequest }),
      ).urls,
    ).toEqual(
      startEarlyReads(
        { ...env, GITHUB_EVENT_NAME: "pull_request_review_comment" },
        payload({ pull_request: pullRequest }),
      ).urls,
    );
    // The default label (GitHub's names are case-insensitive) reads as a comment naming the phrase does.
    const labeled = payload({ action: "labeled", issue: { number: 7 }, label: { name: "Agent" } });
    expect(startEarlyReads({ ...env, GITHUB_EVENT_NAME: "issues" }, labeled).urls).toEqual(
      startEarlyReads(env, payload()).urls,
    );
    // A workflow_dispatch with a prompt reads the config only.
    const dispatch = { ...env, GITHUB_EVENT_NAME: "workflow_dispatch", INPUT_PROMPT: "Tidy up" };
    expect(startEarlyReads(dispatch, { repository: payload().repository }).urls).toEqual([
      "http://127.0.0.1:9/repos/o/r/contents/.github%2Fpatchwright.yml?ref=trunk",
    ]);
  });
});
