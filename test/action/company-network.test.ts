import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import type { ServerStep } from "../helpers/fake-anthropic-server.js";
import { overloaded, reply } from "../helpers/model-script.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import {
  type InspectingProxy,
  makeThrowawayCa,
  startInspectingProxy,
} from "../helpers/tls-proxy.js";
import {
  type ActionWorld,
  API_KEY,
  commentPayload,
  runAction,
  startWorld,
  TOKEN,
  useBundle,
} from "./harness.js";

/**
 * The Action on a self-hosted runner whose HTTPS goes through a proxy that
 * inspects it with the company's own CA: on Node 24, NODE_USE_ENV_PROXY=1
 * sends both of its own clients through HTTPS_PROXY, the GitHub API's and
 * the model's (both node:https, github/rest/http-fetch.ts), and
 * NODE_EXTRA_CA_CERTS is the CA they trust.
 */

const bundle = useBundle();
const GITHUB_HOST = "api.github.corp.test";
const MODEL_HOST = "api.anthropic.corp.test";

let world: ActionWorld | undefined;
let proxy: InspectingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await world?.close();
  proxy = undefined;
  world = undefined;
});

/** An issue_comment run with the step's proxy; `useEnvProxy`: the workflow sets NODE_USE_ENV_PROXY=1 itself. */
async function companyRun(options: {
  trustCa: boolean;
  useEnvProxy: boolean;
  /** The model's API on this machine's loopback (no proxy can reach it), HTTP_PROXY set too. */
  modelOnLoopback?: boolean;
  /** The loopback address that API listens on (default 127.0.0.1). */
  modelHost?: string;
  /** The step's NO_PROXY, with the model on loopback (default none). */
  noProxy?: string;
  steps?: ServerStep[];
  onModelRequest?: () => void;
  onSpawn?: (child: ChildProcess) => void;
}) {
  world = await startWorld({
    steps: options.steps ?? [reply("Nothing to change."), reply("Nothing to change.")],
    ...(options.onModelRequest ? { onModelRequest: options.onModelRequest } : {}),
    ...(options.modelHost ? { modelHost: options.modelHost } : {}),
  });
  const ca = await makeThrowawayCa(await makeTempDir("pw-action-ca-"));
  proxy = await startInspectingProxy({
    ca,
    routes: { [`${GITHUB_HOST}:443`]: world.apiUrl, [`${MODEL_HOST}:443`]: world.model.url },
  });
  return runAction(bundle.entry, world, {
    event: "issue_comment",
    payload: commentPayload(world, "octocat", "@agent tidy up"),
    inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
    ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
    env: {
      GITHUB_API_URL: `https://${GITHUB_HOST}`,
      ANTHROPIC_BASE_URL: options.modelOnLoopback ? world.model.url : `https://${MODEL_HOST}`,
      HTTPS_PROXY: proxy.url,
      ...(options.modelOnLoopback
        ? { HTTP_PROXY: proxy.url, ...(options.noProxy ? { NO_PROXY: options.noProxy } : {}) }
        : // The repository's git server is on this machine (git honours it too).
          { NO_PROXY: "127.0.0.1" }),
      ...(options.useEnvProxy ? { NODE_USE_ENV_PROXY: "1" } : {}),
      ...(options.trustCa ? { NODE_EXTRA_CA_CERTS: ca.certPath } : {}),
    },
  });
}

describe("the Action behind a TLS-inspecting proxy (Node 24)", () => {
  it("reaches GitHub's API and the model through it, trusting the company's CA", async () => {
    const run = await companyRun({ trustCa: true, useEnvProxy: true });
    expect(run.code, run.log).toBe(0);
    expect(run.outputs.conclusion).toBe("no_changes");
    expect(proxy?.asked).toContain(`${GITHUB_HOST}:443`);
    expect(proxy?.asked).toContain(`${MODEL_HOST}:443`);
    // The API calls that decide the job and the tracking comment went this way.
    expect(world?.github.comments.get(7)?.length).toBeGreaterThan(0);
  });

  it("starts itself again with NODE_USE_ENV_PROXY=1 when the step has HTTPS_PROXY only (env-proxy.ts)", async () => {
    const run = await companyRun({ trustCa: true, useEnvProxy: false });
    expect(run.code, run.log).toBe(0);
    expect(run.outputs.conclusion).toBe("no_changes");
    expect(proxy?.asked).toContain(`${GITHUB_HOST}:443`);
    expect(proxy?.asked).toContain(`${MODEL_HOST}:443`);
  });

  it("started again, reaches this machine's own services directly, past HTTP_PROXY and with no NO_PROXY", async () => {
    const run = await companyRun({ trustCa: true, useEnvProxy: false, modelOnLoopback: true });
    expect(run.code, run.log).toBe(0);
    expect(world?.model.requests.length).toBeGreaterThan(0);
    expect(proxy?.asked).toContain(`${GITHUB_HOST}:443`);
    // Neither the model's API nor the git server (both on 127.0.0.1) was asked of the proxy.
    expect(proxy?.asked.filter((target) => target.includes("127.0.0.1"))).toEqual([]);
  });

  it("reaches a model server given by an address in a NO_PROXY range directly, though Node's own reading has no ranges", async () => {
    // The workflow already turned Node's proxy on: the Action starts again only for this.
    const run = await companyRun({
      trustCa: true,
      useEnvProxy: true,
      modelOnLoopback: true,
      modelHost: "127.0.0.2",
      noProxy: "10.0.0.0/8,127.0.0.0/8",
    });
    expect(run.code, run.log).toBe(0);
    expect(world?.model.requests.length).toBeGreaterThan(0);
    expect(proxy?.asked).toContain(`${GITHUB_HOST}:443`);
    expect(proxy?.asked.filter((target) => target.includes("127.0.0.2"))).toEqual([]);
  });

  it("started again, reaches a model server on [::1] directly: Node's fetch needs the address in brackets", async () => {
    const run = await companyRun({
      trustCa: true,
      useEnvProxy: false,
      modelOnLoopback: true,
      modelHost: "::1",
    });
    expect(run.code, run.log).toBe(0);
    expect(world?.model.requests.length).toBeGreaterThan(0);
    expect(proxy?.asked).toContain(`${GITHUB_HOST}:443`);
    expect(proxy?.asked.filter((target) => target.includes("::1"))).toEqual([]);
  });

  it("started again, still stops when the runner cancels the job (its signal is passed on)", async () => {
    let child: ChildProcess | undefined;
    const started = performance.now();
    const run = await companyRun({
      trustCa: true,
      useEnvProxy: false,
      // "Overloaded, retry in 20 s": the runner cancels during that wait.
      steps: [overloaded({ retryAfter: 20 }), reply("never seen")],
      onModelRequest: () => child?.kill("SIGINT"),
      onSpawn: (spawned) => {
        child = spawned;
      },
    });
    expect(run.code, run.log).toBe(1);
    expect(run.outputs.conclusion).toBe("failure");
    expect(run.log).toMatch(/aborted|cancelled/);
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it("fails, naming the certificate, without that CA", async () => {
    const run = await companyRun({ trustCa: false, useEnvProxy: false });
    expect(run.code).not.toBe(0);
    expect(proxy?.asked).toContain(`${GITHUB_HOST}:443`);
    // Said as what it is: no answer, and why.
    expect(run.log).toMatch(
      /GitHub did not answer GET \/repos\/\S+: unable to verify the first certificate/,
    );
  });
});
