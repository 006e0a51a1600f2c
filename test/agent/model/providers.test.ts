import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../../src/agent/events.js";
import { createModelFactory } from "../../../src/agent/model/factory.js";
import type { Model } from "../../../src/agent/model/model.js";
import type { ScriptData } from "../../../src/agent/model/script.js";
import { runAgentSession } from "../../../src/agent/session.js";
import { startFakeBedrock } from "../../helpers/fake-bedrock-server.js";
import { type LoopbackServer, startFakeOpenAi } from "../../helpers/fake-openai-server.js";
import { startFakeVertex } from "../../helpers/fake-vertex-server.js";
import { callTool, httpError, reply } from "../../helpers/model-script.js";
import { sandboxFor } from "../../helpers/sandbox.js";
import { makeRepo } from "../../helpers/temp-dir.js";

/**
 * One scripted fix (read the file, edit it, report), replayed by a loopback
 * fake of each provider and run through the real agent session, with the
 * provider's real SDK on the wire: the file is fixed, and usage and cost
 * are what the provider reported at its price.
 */

const FIX: ScriptData[] = [
  {
    ...callTool("read_file", { file_path: "calc.js" }),
    usage: { inputTokens: 1000, outputTokens: 50 },
  },
  {
    ...callTool("edit_file", { file_path: "calc.js", old_string: "a - b", new_string: "a + b" }),
    usage: { inputTokens: 200, outputTokens: 80, cacheReadTokens: 1000 },
  },
  {
    ...reply("Fixed add() in calc.js: it subtracted."),
    usage: { inputTokens: 100, outputTokens: 40, cacheReadTokens: 1200 },
  },
];
const TOTAL = { inputTokens: 1300, outputTokens: 170, cacheReadTokens: 2200 };

let servers: LoopbackServer[] = [];
let dirs: string[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  servers = [];
  dirs = [];
});

async function runFix(model: Model) {
  const root = await makeRepo({ "calc.js": "export const add = (a, b) => a - b;\n" });
  const events: AgentEvent[] = [];
  const { result } = await runAgentSession({
    root,
    task: "add() is wrong; fix it",
    model,
    policy: { preset: "default", allow: [], deny: [] },
    limits: { maxTurns: 6, maxCostUsd: 1, maxDurationMs: 60_000 },
    envSource: { PATH: process.env.PATH, HOME: process.env.HOME },
    sandbox: await sandboxFor(root),
    clock: Date,
    onEvent: (event) => events.push(event),
  });
  return { result, events, content: await readFile(join(root, "calc.js"), "utf8") };
}

function expectFixed(
  outcome: Awaited<ReturnType<typeof runFix>>,
  price: { input: number; output: number; cacheRead: number },
) {
  expect(outcome.result.error).toBeUndefined();
  expect(outcome.result.stopReason).toBe("end_turn");
  expect(outcome.content).toBe("export const add = (a, b) => a + b;\n");
  expect(outcome.result.finalText).toBe("Fixed add() in calc.js: it subtracted.");
  expect(outcome.result.usage).toMatchObject(TOTAL);
  const expected =
    (TOTAL.inputTokens * price.input +
      TOTAL.outputTokens * price.output +
      TOTAL.cacheReadTokens * price.cacheRead) /
    1e6;
  expect(outcome.result.costUsd).toBeCloseTo(expected, 10);
  expect(outcome.events.filter((e) => e.type === "usage")).toHaveLength(3);
}

describe("the same fix through every provider", () => {
  it("openai/: chat completions with streamed tool-call deltas, usage from the last chunk", async () => {
    const server = await startFakeOpenAi(FIX);
    servers.push(server);
    const model = createModelFactory({
      OPENAI_API_KEY: "sk-openai-test-key",
      OPENAI_BASE_URL: `${server.url}/v1`,
    })("openai/gpt-4.1");
    const outcome = await runFix(model);
    expectFixed(outcome, { input: 2, output: 8, cacheRead: 0.5 });
    const first = server.requests[0]?.body as Record<string, unknown>;
    // Sent without the prefix, streamed with usage, tools as functions.
    expect(first).toMatchObject({
      model: "gpt-4.1",
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(
      (first.tools as Array<{ function: { name: string } }>).map((t) => t.function.name),
    ).toContain("edit_file");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-openai-test-key");
    // The tool call and its result went back in OpenAI's shape.
    const third = server.requests[2]?.body as { messages: Array<Record<string, unknown>> };
    const roles = third.messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "assistant", "tool"]);
    expect(third.messages[3]?.content).toContain("export const add");
  });

  it("bedrock/: SigV4-signed, answered in AWS event-stream frames", async () => {
    const server = await startFakeBedrock(FIX, {
      accessKeyId: "AKIDFAKEBEDROCK",
      region: "eu-west-1",
    });
    servers.push(server);
    const id = "eu.anthropic.claude-sonnet-4-5-20250929-v1:0";
    const model = createModelFactory({
      AWS_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "AKIDFAKEBEDROCK",
      AWS_SECRET_ACCESS_KEY: "fake-secret-access-key",
      ANTHROPIC_BEDROCK_BASE_URL: server.url,
    })(`bedrock/${id}`);
    expect(model.contextWindow).toBe(200_000);
    const outcome = await runFix(model);
    expectFixed(outcome, { input: 3, output: 15, cacheRead: 0.3 });
    expect(server.requests[0]?.path).toBe(`/model/${id}/invoke-with-response-stream`);
    // Prompt caching carries over: the Messages API body, cache breakpoints included.
    expect(JSON.stringify(server.requests[1]?.body)).toContain(
      '"cache_control":{"type":"ephemeral"}',
    );
  });

  it("vertex/: Google credentials from a standard credential file, Messages API SSE", async () => {
    const server = await startFakeVertex(FIX, { projectId: "acme-ml", region: "us-east5" });
    servers.push(server);
    const dir = await mkdtemp(join(tmpdir(), "vertex-"));
    dirs.push(dir);
    // google-auth-library reads Application Default Credentials from the process environment.
    vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", await server.writeCredentials(dir));
    // A gcloud that says when it runs: google-auth-library asks it for the
    // project it does not know (a second of Python on GitHub's runners).
    const bin = join(dir, "bin");
    await mkdir(bin);
    await writeFile(
      join(bin, "gcloud"),
      `#!/bin/sh\necho ran >> "${join(dir, "gcloud-ran")}"\nexit 1\n`,
      {
        mode: 0o755,
      },
    );
    vi.stubEnv("PATH", `${bin}:${process.env.PATH}`);
    const model = createModelFactory({
      CLOUD_ML_REGION: "us-east5",
      ANTHROPIC_VERTEX_PROJECT_ID: "acme-ml",
      ANTHROPIC_VERTEX_BASE_URL: `${server.url}/v1`,
    })("vertex/claude-haiku-4-5@20251001");
    const outcome = await runFix(model);
    expectFixed(outcome, { input: 1, output: 5, cacheRead: 0.1 });
    expect(server.tokenRequests()).toBe(1);
    // The project is configured: nothing looked it up.
    expect(existsSync(join(dir, "gcloud-ran"))).toBe(false);
    const body = server.requests.find((r) => r.path.includes(":streamRawPredict"))?.body as Record<
      string,
      unknown
    >;
    // Vertex takes the API version in the body and the model in the path.
    expect(body.anthropic_version).toEqual(expect.any(String));
    expect(body.model).toBeUndefined();
  });
});

describe("retries through the cloud SDKs", () => {
  it("bedrock/: a throttled request and a cut event stream are retried", async () => {
    const server = await startFakeBedrock(
      [httpError(429, "Too many requests"), { cut: { afterEvents: 3 } }, reply("fine")],
      { accessKeyId: "AKIDFAKEBEDROCK", region: "us-west-2" },
    );
    servers.push(server);
    const env = {
      AWS_REGION: "us-west-2",
      AWS_ACCESS_KEY_ID: "AKIDFAKEBEDROCK",
      AWS_SECRET_ACCESS_KEY: "s3cret-bedrock-key",
      ANTHROPIC_BEDROCK_BASE_URL: server.url,
    };
    const model = createModelFactory(env, { sleep: async () => {} })(
      "bedrock/anthropic.claude-haiku-4-5-20251001-v1:0",
    );
    const retries: string[] = [];
    const response = await model.complete(
      {
        system: [],
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        tools: [],
        maxTokens: 100,
      },
      (event) => event.type === "retry" && retries.push(event.reason),
    );
    expect(response.content).toEqual([{ type: "text", text: "fine" }]);
    expect(retries).toEqual([
      expect.stringContaining("429"),
      expect.stringContaining("connection"),
    ]);
  }, 30_000);

  it("bedrock/: a 4xx is not retried, and the secret key is not in the message", async () => {
    const server = await startFakeBedrock([], { accessKeyId: "AKIDOTHER", region: "us-west-2" });
    servers.push(server);
    const env = {
      AWS_REGION: "us-west-2",
      AWS_ACCESS_KEY_ID: "AKIDFAKEBEDROCK",
      AWS_SECRET_ACCESS_KEY: "s3cret-bedrock-key",
      ANTHROPIC_BEDROCK_BASE_URL: server.url,
    };
    const model = createModelFactory(env)("bedrock/anthropic.claude-haiku-4-5-20251001-v1:0");
    const error = await model
      .complete({
        system: [],
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        tools: [],
        maxTokens: 100,
      })
      .catch((e: unknown) => e as Error);
    expect((error as Error).message).toMatch(
      /^Amazon Bedrock error \(403.*check the AWS credentials/,
    );
    expect((error as Error).message).not.toContain("s3cret-bedrock-key");
    expect(server.requests).toHaveLength(1);
  });
});
