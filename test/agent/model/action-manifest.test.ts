import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createModelFactory, ModelSetupError } from "../../../src/agent/model/factory.js";

/**
 * A run on a non-Anthropic model never asks for ANTHROPIC_API_KEY: the
 * Action's manifest must not make its key input required either (GitHub
 * fails a step that leaves a required input out before any code runs).
 */

const manifest = parse(
  readFileSync(join(import.meta.dirname, "..", "..", "..", "action.yml"), "utf8"),
) as { inputs: Record<string, { required?: boolean; description?: string }> };

describe("action.yml's anthropic_api_key", () => {
  it("is optional, and says when it is needed and what the other providers read", () => {
    const input = manifest.inputs.anthropic_api_key;
    expect(input?.required).toBe(false);
    for (const words of ["bedrock/", "vertex/", "openai/", "AWS_REGION", "OPENAI_API_KEY"]) {
      expect(input?.description).toContain(words);
    }
  });

  it("agrees with the model factory: only an Anthropic model needs the key", () => {
    const missing = "input anthropic_api_key: required for an Anthropic model";
    const factory = createModelFactory(
      { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", AWS_REGION: "us-east-1" },
      { missingAnthropicKey: missing },
    );
    expect(factory("openai/qwen3-coder").id).toBe("qwen3-coder");
    expect(factory("bedrock/anthropic.claude-haiku-4-5-20251001-v1:0").spec).toBe(
      "bedrock/anthropic.claude-haiku-4-5-20251001-v1:0",
    );
    expect(() => factory("claude-sonnet-5-5")).toThrow(ModelSetupError);
    expect(() => factory("claude-sonnet-5-5")).toThrow(missing);
  });
});
