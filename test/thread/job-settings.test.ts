import { describe, expect, it } from "vitest";
import type { ModelSettings } from "../../src/agent/model/factory.js";
import { createScriptedModel } from "../../src/agent/model/scripted.js";
import { parseConfig } from "../../src/config/parse.js";
import { jobSettingsFrom } from "../../src/thread/job-settings.js";

describe("jobSettingsFrom", () => {
  it("carries the repository's verify_timeout, limits and pricing into every job", async () => {
    const parsed = await parseConfig(
      [
        "model: openai/my-model",
        "pricing:",
        '  "openai/my-model": { input: 1.5, output: 6 }',
        "verify: npm test",
        "verify_timeout: 90s",
        "max_turns: 7",
        "max_minutes: 3",
        "",
      ].join("\n"),
    );
    if (!parsed.ok) throw parsed.error;
    const asked: Array<[string, ModelSettings | undefined]> = [];
    const settings = jobSettingsFrom(parsed.config, (id, modelSettings) => {
      asked.push([id, modelSettings]);
      return createScriptedModel([]);
    });
    expect(settings.verifyTimeoutSeconds).toBe(90);
    expect(settings.verify).toBe("npm test");
    expect(settings.limits).toMatchObject({ maxTurns: 7, maxDurationMs: 180_000 });
    expect(asked).toEqual([
      [
        "openai/my-model",
        { pricing: { "openai/my-model": expect.objectContaining({ input: 1.5 }) } },
      ],
    ]);
  });
});
