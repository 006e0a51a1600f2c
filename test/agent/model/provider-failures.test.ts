import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createModelFactory } from "../../../src/agent/model/factory.js";
import type { Model, ModelRequest, ModelStreamEvent } from "../../../src/agent/model/model.js";
import { ModelError } from "../../../src/agent/model/model.js";
import type { ScriptData } from "../../../src/agent/model/script.js";
import { startFakeAnthropic } from "../../helpers/fake-anthropic-server.js";
import { startFakeBedrock } from "../../helpers/fake-bedrock-server.js";
import {
  type LoopbackServer,
  sendJson,
  startFakeOpenAi,
  startRecordingServer,
} from "../../helpers/fake-openai-server.js";
import { startFakeVertex, writeVertexCredentials } from "../../helpers/fake-vertex-server.js";
import { cut, httpError, overloaded, reply, text } from "../../helpers/model-script.js";

/**
 * Each provider's real SDK against its loopback fake: which failures are
 * retried (rate limits, overload, 5xx, cut streams) and which never are (any
 * other 4xx), and that an abort ends a request in flight, mid-stream or
 * waiting out a backoff, without another request.
 */

let servers: LoopbackServer[] = [];
let dirs: string[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  servers = [];
  dirs = [];
});

const AWS = {
  AWS_REGION: "us-west-2",
  AWS_ACCESS_KEY_ID: "AKIDFAKEBEDROCK",
  AWS_SECRET_ACCESS_KEY: "s3cret-bedrock-key",
};
const BEDROCK_ID = "bedrock/anthropic.claude-haiku-4-5-20251001-v1:0";
const VERTEX = { projectId: "acme-ml", region: "us-east5" };
const VERTEX_ID = "vertex/claude-haiku-4-5@20251001";

type Tuning = Parameters<typeof createModelFactory>[1];

interface Provider {
  name: string;
  /** The model through the provider's fake replaying `steps`, and the model requests it saw. */
  start(steps: ScriptData[], tuning: Tuning): Promise<{ model: Model; modelRequests(): number }>;
}

const noSleep: Tuning = { sleep: async () => {}, random: () => 0.5 };

const PROVIDERS: Provider[] = [
  {
    name: "anthropic",
    async start(steps, tuning) {
      const server = await startFakeAnthropic(steps);
      servers.push(server);
      const model = createModelFactory(
        { ANTHROPIC_API_KEY: "sk-ant-test-key-4xx", ANTHROPIC_BASE_URL: server.url },
        tuning,
      )("claude-haiku-4-5");
      return { model, modelRequests: () => server.requests.length };
    },
  },
  {
    name: "openai",
    async start(steps, tuning) {
      const server = await startFakeOpenAi(steps);
      servers.push(server);
      const model = createModelFactory(
        { OPENAI_API_KEY: "sk-openai-test-key-4xx", OPENAI_BASE_URL: `${server.url}/v1` },
        tuning,
      )("openai/gpt-4.1");
      return { model, modelRequests: () => server.requests.length };
    },
  },
  {
    name: "bedrock",
    async start(steps, tuning) {
      const server = await startFakeBedrock(steps, {
        accessKeyId: AWS.AWS_ACCESS_KEY_ID,
        region: AWS.AWS_REGION,
      });
      servers.push(server);
      const model = createModelFactory(
        { ...AWS, ANTHROPIC_BEDROCK_BASE_URL: server.url },
        tuning,
      )(BEDROCK_ID);
      return { model, modelRequests: () => server.requests.length };
    },
  },
  {
    name: "vertex",
    async start(steps, tuning) {
      const server = await startFakeVertex(steps, VERTEX);
      servers.push(server);
      const dir = await mkdtemp(join(tmpdir(), "vertex-"));
      dirs.push(dir);
      vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", await server.writeCredentials(dir));
      const model = createModelFactory(
        {
          CLOUD_ML_REGION: VERTEX.region,
          ANTHROPIC_VERTEX_PROJECT_ID: VERTEX.projectId,
          ANTHROPIC_VERTEX_BASE_URL: `${server.url}/v1`,
        },
        tuning,
      )(VERTEX_ID);
      return {
        model,
        modelRequests: () => server.requests.filter((r) => r.path.includes(":stream")).length,
      };
    },
  },
];

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  system: ["sys"],
  messages: [{ role: "user", content: [text("hi")] }],
  tools: [],
  maxTokens: 100,
  ...extra,
});

describe.each(PROVIDERS)("$name: a 4xx other than 429", (provider) => {
  it.each([408, 409, 422])("is not retried (%i)", async (status) => {
    const { model, modelRequests } = await provider.start(
      [httpError(status, `scripted ${status}`), reply("never sent")],
      noSleep,
    );
    const retries: ModelStreamEvent[] = [];
    const error = await model
      .complete(request(), (event) => event.type === "retry" && retries.push(event))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status, retryable: false });
    expect(retries).toEqual([]);
    expect(modelRequests()).toBe(1);
  });
});

describe("x-should-retry on a 4xx", () => {
  it("does not make the Anthropic path retry a 409", async () => {
    // The fake Anthropic server sends no such header, so a bare one plays the API here.
    const server = await startRecordingServer((_request, res) =>
      sendJson(
        res,
        409,
        { type: "error", error: { type: "conflict_error", message: "busy" } },
        { "x-should-retry": "true" },
      ),
    );
    servers.push(server);
    const model = createModelFactory(
      { ANTHROPIC_API_KEY: "sk-ant-test-key-4xx", ANTHROPIC_BASE_URL: server.url },
      noSleep,
    )("claude-haiku-4-5");
    await expect(model.complete(request())).rejects.toMatchObject({
      status: 409,
      retryable: false,
    });
    expect(server.requests).toHaveLength(1);
  });
});

describe("vertex/: retries", () => {
  it("retries a rate limit, an overload, a 5xx and a cut stream, then answers", async () => {
    const vertex = PROVIDERS.find((p) => p.name === "vertex") as Provider;
    const sleeps: number[] = [];
    const { model, modelRequests } = await vertex.start(
      [httpError(429, "Quota exceeded"), overloaded(), httpError(503), cut(3), reply("fine")],
      {
        sleep: async (ms) => {
          sleeps.push(ms);
        },
        random: () => 1,
      },
    );
    const retries: string[] = [];
    const response = await model.complete(
      request(),
      (event) => event.type === "retry" && retries.push(event.reason),
    );
    expect(response.content).toEqual([text("fine")]);
    expect(retries).toEqual([
      expect.stringContaining("429"),
      expect.stringContaining("529"),
      expect.stringContaining("503"),
      expect.stringContaining("connection"),
    ]);
    // Full jitter at random() = 1: the ceiling, doubling from 1 s.
    expect(sleeps).toEqual([1000, 2000, 4000, 8000]);
    expect(modelRequests()).toBe(5);
  }, 30_000);

  it("gives up after maxRetries on a lasting overload", async () => {
    const vertex = PROVIDERS.find((p) => p.name === "vertex") as Provider;
    const { model, modelRequests } = await vertex.start(
      [overloaded(), overloaded(), overloaded(), reply("too late")],
      { ...noSleep, maxRetries: 2 },
    );
    await expect(model.complete(request())).rejects.toThrow(
      /Google Vertex AI still failing after 3 attempts \(last: 529/,
    );
    expect(modelRequests()).toBe(3);
  });
});

/**
 * A cloud endpoint that accepts a model request and never answers it (the
 * Vertex one mints tokens first), so only an abort can end the call.
 */
async function startSilent(onRequest: () => void): Promise<LoopbackServer> {
  const server = await startRecordingServer((recorded, res) => {
    if (recorded.path === "/token") {
      sendJson(res, 200, { access_token: "ya29.silent", expires_in: 3600, token_type: "Bearer" });
      return;
    }
    onRequest();
  });
  servers.push(server);
  return server;
}

async function silentModel(name: "bedrock" | "vertex", onRequest: () => void): Promise<Model> {
  const server = await startSilent(onRequest);
  if (name === "bedrock") {
    return createModelFactory({ ...AWS, ANTHROPIC_BEDROCK_BASE_URL: server.url })(BEDROCK_ID);
  }
  const dir = await mkdtemp(join(tmpdir(), "vertex-"));
  dirs.push(dir);
  const file = await writeVertexCredentials(dir, server.url);
  vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", file);
  return createModelFactory({
    CLOUD_ML_REGION: VERTEX.region,
    ANTHROPIC_VERTEX_PROJECT_ID: VERTEX.projectId,
    ANTHROPIC_VERTEX_BASE_URL: `${server.url}/v1`,
  })(VERTEX_ID);
}

describe.each(["bedrock", "vertex"] as const)("%s/: abort", (name) => {
  const provider = PROVIDERS.find((p) => p.name === name) as Provider;

  it("ends a request the endpoint has not answered, with the abort's reason", async () => {
    const controller = new AbortController();
    const model = await silentModel(name, () => controller.abort(new Error("stopped by user")));
    const retries: ModelStreamEvent[] = [];
    await expect(
      model.complete(request({ signal: controller.signal }), (event) => {
        if (event.type === "retry") retries.push(event);
      }),
    ).rejects.toThrow("stopped by user");
    expect(retries).toEqual([]);
  }, 15_000);

  it("ends a stream mid-answer and does not send the request again", async () => {
    const { model, modelRequests } = await provider.start(
      [reply("a long answer that is still streaming when the user stops the run"), reply("no")],
      noSleep,
    );
    const controller = new AbortController();
    await expect(
      model.complete(request({ signal: controller.signal }), (event) => {
        if (event.type === "text_delta") controller.abort(new Error("stopped mid-stream"));
      }),
    ).rejects.toThrow("stopped mid-stream");
    expect(modelRequests()).toBe(1);
  });

  it("ends the wait before a retry, so an overloaded endpoint is not asked again", async () => {
    const { model, modelRequests } = await provider.start([overloaded(), reply("later")], {
      baseDelayMs: 600_000,
      maxDelayMs: 600_000,
      random: () => 1,
    });
    const controller = new AbortController();
    const started = Date.now();
    await expect(
      model.complete(request({ signal: controller.signal }), (event) => {
        if (event.type === "retry") controller.abort(new Error("stopped during backoff"));
      }),
    ).rejects.toThrow("stopped during backoff");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(modelRequests()).toBe(1);
  });
});
