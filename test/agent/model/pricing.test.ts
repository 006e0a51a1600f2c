import { describe, expect, it } from "vitest";
import { parseModelSpec } from "../../../src/agent/model/model-spec.js";
import {
  contextWindowOf,
  costOf,
  priceOf,
  resolvePrice,
  UNKNOWN_CONTEXT_WINDOW,
} from "../../../src/agent/model/pricing.js";

const MILLION = {
  inputTokens: 1_000_000,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

describe("pricing", () => {
  it("prices each token kind at the model's published rate", () => {
    const usage = {
      inputTokens: 2_000,
      outputTokens: 1_000,
      cacheReadTokens: 100_000,
      cacheWriteTokens: 10_000,
    };
    // Sonnet 4.6: $3 in, $15 out, $0.30 cache read, $3.75 5m cache write per million.
    expect(costOf("claude-sonnet-4-6", usage)).toBeCloseTo(0.006 + 0.015 + 0.03 + 0.0375, 12);
    // Opus 4.6: $5 / $25 / $0.50 / $6.25.
    expect(costOf("claude-opus-4-6", usage)).toBeCloseTo(0.01 + 0.025 + 0.05 + 0.0625, 12);
    // Haiku 4.5: $1 / $5 / $0.10 / $1.25.
    expect(costOf("claude-haiku-4-5", usage)).toBeCloseTo(0.002 + 0.005 + 0.01 + 0.0125, 12);
  });

  it("matches dated ids and suffixes by prefix", () => {
    expect(priceOf("claude-sonnet-4-5-20250929")).toEqual(priceOf("claude-sonnet-4-5"));
    expect(priceOf("claude-haiku-4-5-20251001")?.input).toBe(1);
    expect(priceOf("claude-opus-4-5-20251101")?.input).toBe(5);
    expect(priceOf("claude-opus-4-8[1m]")?.input).toBe(5);
  });

  it("prefers the longest prefix, so Opus 4.1 and Opus 4.5 differ from Opus 4", () => {
    expect(costOf("claude-opus-4-20250514", MILLION)).toBe(15);
    expect(costOf("claude-opus-4-1-20250805", MILLION)).toBe(15);
    expect(costOf("claude-opus-4-5", MILLION)).toBe(5);
    expect(costOf("claude-sonnet-5-5", MILLION)).toBe(2);
    expect(costOf("claude-sonnet-4", MILLION)).toBe(3);
  });

  it("does not let an older prefix claim a newer minor version or a longer name", () => {
    // Not "claude-opus-4" ($15), and no guess either: a new model's price is unknown.
    expect(priceOf("claude-opus-4-9")).toBeNull();
    expect(priceOf("claude-sonnet-4-50")).toBeNull();
    expect(priceOf("claude-sonnet-4-5x")).toBeNull();
  });

  it("knows no price for an id the table does not list, rather than guessing one", () => {
    expect(priceOf("claude-foo-9")).toBeNull();
    expect(priceOf("claude-haiku-9")).toBeNull();
    expect(priceOf("some-proxy-model")).toBeNull();
    expect(costOf("claude-foo-9", MILLION)).toBe(0);
    expect(contextWindowOf("some-proxy-model")).toBe(UNKNOWN_CONTEXT_WINDOW);
  });

  it("knows context windows", () => {
    expect(contextWindowOf("claude-sonnet-4-6")).toBe(1_000_000);
    expect(contextWindowOf("claude-opus-4-8")).toBe(1_000_000);
    expect(contextWindowOf("claude-sonnet-4-5-20250929")).toBe(200_000);
    expect(contextWindowOf("claude-haiku-4-5")).toBe(200_000);
  });
});

describe("resolvePrice", () => {
  const table = (model: string) => resolvePrice(parseModelSpec(model)).price;

  it("prices each provider's spelling of a known Claude model from the table", () => {
    const sonnet45 = priceOf("claude-sonnet-4-5");
    expect(sonnet45?.input).toBe(3);
    expect(table("claude-sonnet-4-5-20250929")).toEqual(sonnet45);
    expect(table("anthropic/claude-sonnet-4-5-20250929")).toEqual(sonnet45);
    expect(table("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0")).toEqual(sonnet45);
    expect(table("bedrock/global.anthropic.claude-sonnet-4-5-20250929-v1:0")).toEqual(sonnet45);
    expect(table("bedrock/anthropic.claude-haiku-4-5-20251001-v1:0")?.input).toBe(1);
    expect(
      table(
        "bedrock/arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-opus-4-1-20250805-v1:0",
      )?.input,
    ).toBe(15);
    expect(table("vertex/claude-sonnet-4-5@20250929")).toEqual(sonnet45);
    expect(table("vertex/claude-haiku-4-5@20251001")?.input).toBe(1);
  });

  it("knows no price for an unknown model on any provider, so a capped run refuses", () => {
    for (const model of [
      "claude-foo-9",
      "anthropic/claude-foo-9",
      "bedrock/us.anthropic.claude-foo-9-v1:0",
      "bedrock/anthropic.claude-opus-4-9-20270101-v1:0",
      "vertex/claude-foo-9@20260101",
      "vertex/my-claude-sonnet-4-5-finetune",
      "bedrock/arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123",
      "openai/gpt-4.1-turbo-preview",
    ]) {
      expect({ model, price: table(model) }).toEqual({ model, price: null });
    }
  });

  it("takes the config's pricing: for a model the table does not know", () => {
    const resolved = resolvePrice(parseModelSpec("claude-foo-9"), {
      "claude-foo-9": { input: 2, output: 8, contextWindow: 100_000 },
    });
    expect(resolved.price).toMatchObject({ input: 2, output: 8, cacheRead: 2, cacheWrite: 2.5 });
    expect(resolved.contextWindow).toBe(100_000);
  });
});
