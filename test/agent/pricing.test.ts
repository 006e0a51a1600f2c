import { describe, expect, it } from "vitest";
import { contextWindowOf, costOf, priceOf } from "../../src/agent/pricing.js";

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
    expect(priceOf("claude-haiku-4-5-20251001").input).toBe(1);
    expect(priceOf("claude-opus-4-5-20251101").input).toBe(5);
    expect(priceOf("claude-opus-4-8[1m]").input).toBe(5);
  });

  it("prefers the longest prefix, so Opus 4.1 and Opus 4.5 differ from Opus 4", () => {
    expect(costOf("claude-opus-4-20250514", MILLION)).toBe(15);
    expect(costOf("claude-opus-4-1-20250805", MILLION)).toBe(15);
    expect(costOf("claude-opus-4-5", MILLION)).toBe(5);
    expect(costOf("claude-sonnet-5-5", MILLION)).toBe(2);
    expect(costOf("claude-sonnet-4", MILLION)).toBe(3);
  });

  it("does not let an older prefix claim a newer minor version", () => {
    // Not "claude-opus-4" ($15): an unknown Opus gets the family default.
    expect(priceOf("claude-opus-4-9").input).toBe(5);
  });

  it("falls back to family prices, then Sonnet prices, for unknown ids", () => {
    expect(priceOf("anthropic.claude-haiku-9").input).toBe(1);
    expect(priceOf("some-proxy-model").input).toBe(3);
    expect(contextWindowOf("some-proxy-model")).toBe(200_000);
  });

  it("knows context windows", () => {
    expect(contextWindowOf("claude-sonnet-4-6")).toBe(1_000_000);
    expect(contextWindowOf("claude-opus-4-8")).toBe(1_000_000);
    expect(contextWindowOf("claude-sonnet-4-5-20250929")).toBe(200_000);
    expect(contextWindowOf("claude-haiku-4-5")).toBe(200_000);
  });
});
