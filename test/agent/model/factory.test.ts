import { describe, expect, it } from "vitest";
import { FileHistory } from "../../../src/agent/file-history.js";
import { runAgent } from "../../../src/agent/loop.js";
import {
  createModelFactory,
  ModelSetupError,
  otherProviderConfigured,
} from "../../../src/agent/model/factory.js";
import type { Model } from "../../../src/agent/model/model.js";
import { parseModelSpec } from "../../../src/agent/model/model-spec.js";
import { defaultTools } from "../../../src/agent/tools/index.js";
import { createToolRegistry } from "../../../src/agent/tools/registry.js";
import {
  type FakeOpenAi,
  startFakeOpenAi,
  startRecordingServer,
} from "../../helpers/fake-openai-server.js";
import { reply } from "../../helpers/model-script.js";
import { noSandbox } from "../../helpers/sandbox.js";

describe("model specs", () => {
  it("reads provider/id, keeps a bare id Anthropic's and refuses unknown providers", () => {
    expect(parseModelSpec("claude-sonnet-5-5")).toEqual({
      provider: "anthropic",
      id: "claude-sonnet-5-5",
    });
    expect(parseModelSpec("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0")).toEqual({
      provider: "bedrock",
      id: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    });
    expect(parseModelSpec("openai/org/model-7b")).toEqual({
      provider: "openai",
      id: "org/model-7b",
    });
    expect(() => parseModelSpec("azure/gpt-4.1")).toThrow(
      /unknown provider "azure"; write anthropic\/<id>, bedrock\/<id>/,
    );
    expect(() => parseModelSpec("openai/")).toThrow(/the model id after "openai\/" is empty/);
  });
});

describe("createModelFactory", () => {
  it("asks each provider only for its own credentials", () => {
    const none = createModelFactory({});
    expect(() => none("claude-sonnet-5-5")).toThrow(/ANTHROPIC_API_KEY is not set/);
    expect(() => none("openai/gpt-4.1")).toThrow(/OPENAI_API_KEY is not set/);
    expect(() => none("bedrock/anthropic.claude-sonnet-4-5")).toThrow(/AWS_REGION is not set/);
    expect(() => none("vertex/claude-sonnet-4-5")).toThrow(/CLOUD_ML_REGION is not set/);
    expect(() => none("vertex/claude-sonnet-4-5")).toThrow(ModelSetupError);
    // Not one of them mentions Anthropic's key.
    for (const spec of [
      "openai/gpt-4.1",
      "bedrock/anthropic.claude-sonnet-4-5",
      "vertex/claude-sonnet-4-5",
    ]) {
      expect(() => none(spec)).not.toThrow(/ANTHROPIC_API_KEY/);
    }
    // A self-hosted server needs no key, only its address.
    expect(
      createModelFactory({ OPENAI_BASE_URL: "http://127.0.0.1:1/v1" })("openai/llama-3.1-8b").id,
    ).toBe("llama-3.1-8b");
  });

  it("lets an entry point word the missing Anthropic key, and tells when another provider is set up", () => {
    const action = createModelFactory(
      { OPENAI_API_KEY: "k" },
      { missingAnthropicKey: "input anthropic_api_key: required" },
    );
    expect(() => action("claude-sonnet-5-5")).toThrow(/^input anthropic_api_key: required$/);
    expect(action("openai/gpt-4.1").id).toBe("gpt-4.1");
    expect(otherProviderConfigured({ OPENAI_API_KEY: "k" })).toBe(true);
    expect(otherProviderConfigured({ CLOUD_ML_REGION: "us-east5" })).toBe(true);
    expect(otherProviderConfigured({ ANTHROPIC_BASE_URL: "http://x", OPENAI_API_KEY: "" })).toBe(
      false,
    );
  });

  it("prices from the provider's table, from the config, or not at all", () => {
    const factory = createModelFactory({
      OPENAI_API_KEY: "k",
      AWS_REGION: "us-east-1",
      ANTHROPIC_API_KEY: "a",
    });
    expect(factory("openai/gpt-4.1-2025-04-14").price).toMatchObject({
      input: 2,
      output: 8,
      cacheRead: 0.5,
    });
    // A newer model never takes an older one's price.
    expect(factory("openai/gpt-4.1.5").price).toBeNull();
    expect(factory("openai/my-model").price).toBeNull();
    expect(factory("openai/my-model").contextWindow).toBe(32_000);
    const configured = factory("openai/my-model", {
      pricing: {
        "openai/my-model": { input: 1.5, output: 6, cacheRead: 0.15, contextWindow: 128_000 },
      },
    });
    expect(configured.price).toEqual({
      input: 1.5,
      output: 6,
      cacheRead: 0.15,
      cacheWrite: 1.5,
      contextWindow: 128_000,
    });
    expect(configured.contextWindow).toBe(128_000);
    expect(factory("bedrock/us.anthropic.claude-opus-4-1-20250805-v1:0").price).toMatchObject({
      input: 15,
      output: 75,
    });
    expect(factory("bedrock/meta.llama3-70b").price).toBeNull();
    expect(factory("claude-haiku-4-5").price).toMatchObject({ input: 1, output: 5 });
  });
});

describe("a model with no known price", () => {
  let server: FakeOpenAi | undefined;

  async function run(model: Model, maxCostUsd: number) {
    return runAgent(
      {
        model,
        registry: createToolRegistry(defaultTools()),
        check: () => ({ allow: true }),
        history: new FileHistory(),
        root: "/nonexistent",
        env: {},
        sandbox: noSandbox("/nonexistent"),
        redact: (text) => text,
        clock: Date,
      },
      { prompt: "hi", system: ["sys"], limits: { maxTurns: 3, maxCostUsd, maxDurationMs: 60_000 } },
    );
  }

  it("refuses to start under a USD cap, before any request, naming the config key to set", async () => {
    server = await startFakeOpenAi([reply("should not be asked")]);
    const model = createModelFactory({ OPENAI_BASE_URL: `${server.url}/v1` })("openai/my-model");
    const result = await run(model, 5);
    expect(result.stopReason).toBe("error");
    expect(result.error).toMatch(
      /no price is known for model "openai\/my-model".*pricing: \{ "openai\/my-model": \{ input/,
    );
    expect(server.requests).toHaveLength(0);
    await server.close();
  });

  it.each([
    ["claude-foo-9", "claude-foo-9"],
    ["anthropic/claude-opus-4-9", "claude-opus-4-9"],
    ["bedrock/us.anthropic.claude-foo-9-v1:0", "bedrock/us.anthropic.claude-foo-9-v1:0"],
    ["vertex/claude-foo-9@20260101", "vertex/claude-foo-9@20260101"],
  ])(
    "an unknown Claude id (%s) is not priced as a guess: it refuses under a cap too",
    async (spec, named) => {
      const recorder = await startRecordingServer((_request, res) => res.destroy());
      try {
        const model = createModelFactory({
          ANTHROPIC_API_KEY: "sk-ant-test-key-unknown",
          ANTHROPIC_BASE_URL: recorder.url,
          AWS_REGION: "us-east-1",
          AWS_ACCESS_KEY_ID: "AKIDUNKNOWN",
          AWS_SECRET_ACCESS_KEY: "unknown-secret-key",
          ANTHROPIC_BEDROCK_BASE_URL: recorder.url,
          CLOUD_ML_REGION: "us-east5",
          ANTHROPIC_VERTEX_PROJECT_ID: "acme",
          ANTHROPIC_VERTEX_BASE_URL: `${recorder.url}/v1`,
        })(spec);
        expect(model.price).toBeNull();
        const result = await run(model, 5);
        expect(result.stopReason).toBe("error");
        expect(result.error).toContain(`no price is known for model "${named}"`);
        expect(recorder.requests).toHaveLength(0);
      } finally {
        await recorder.close();
      }
    },
  );

  it("runs once the config gives a price, and counts the cost at it", async () => {
    server = await startFakeOpenAi([
      { ...reply("hello"), usage: { inputTokens: 1_000_000, outputTokens: 0 } },
    ]);
    const model = createModelFactory({ OPENAI_BASE_URL: `${server.url}/v1` })("openai/my-model", {
      pricing: { "openai/my-model": { input: 1.5, output: 6 } },
    });
    const result = await run(model, 5);
    expect(result.stopReason).toBe("end_turn");
    expect(result.costUsd).toBeCloseTo(1.5, 10);
    await server.close();
  });
});
