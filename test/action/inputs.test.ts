import { describe, expect, it } from "vitest";
import { applyInputs, type InputName, readInputs } from "../../src/action/inputs.js";
import { defaultConfig } from "../../src/config/schema.js";

function read(values: Partial<Record<InputName, string>>) {
  return readInputs((name) => values[name] ?? "");
}

describe("readInputs", () => {
  it("treats inputs that were not given as not set", () => {
    const result = read({});
    expect(result).toEqual({
      ok: true,
      inputs: expect.objectContaining({ mode: "auto", allowedCommands: [], app: undefined }),
    });
    if (!result.ok) return;
    expect(result.inputs.maxTurns).toBeUndefined();
    expect(result.inputs.prompt).toBeUndefined();
  });

  it("parses numbers, the policy preset, and one allowed command per line", () => {
    const result = read({
      max_turns: " 12 ",
      max_cost_usd: "1.5",
      policy: "trusted",
      allowed_commands: "npm run lint -- *\n\n# the formatter\nnpx biome format *\n",
      app_id: "123",
      private_key: "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
      mode: "deps",
    });
    expect(result.ok && result.inputs).toMatchObject({
      maxTurns: 12,
      maxCostUsd: 1.5,
      policy: "trusted",
      allowedCommands: ["npm run lint -- *", "npx biome format *"],
      app: { id: "123" },
      mode: "deps",
    });
  });

  it("names every bad input with what it got, but never a secret's value", () => {
    const result = read({
      max_turns: "0",
      max_cost_usd: "five",
      policy: "anything",
      mode: "sometimes",
      trigger_phrase: "@agent\nplease",
      private_key: "hunter2-not-a-key",
      app_id: "my-app",
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message.split("\n")).toEqual([
      'input app_id: expected the App\'s numeric id, such as 123456 (got "my-app")',
      "input private_key: expected the App's private key in PEM form (-----BEGIN RSA PRIVATE KEY----- ...)",
      "input trigger_phrase: expected a trigger phrase such as @agent on a single line",
      'input max_turns: expected a whole number above 0, such as 30 (got "0")',
      'input max_cost_usd: expected a number of US dollars above 0, such as 2.5 (got "five")',
      'input policy: expected one of read-only, default, trusted (got "anything")',
      'input mode: expected auto, deps or review (got "sometimes")',
    ]);
    expect(result.message).not.toContain("hunter2");
  });

  it("wants both halves of the App's credentials", () => {
    const result = read({ app_id: "123" });
    expect(result).toEqual({
      ok: false,
      message: "input private_key: required when app_id is given",
    });
  });

  it("refuses a config path outside the repository", () => {
    const result = read({ config_path: "../secrets.yml" });
    expect(result.ok === false && result.message).toMatch(
      /^input config_path: expected a path inside/,
    );
  });
});

describe("applyInputs", () => {
  it("keeps the file's settings when no input is given", () => {
    const config = defaultConfig();
    const result = read({});
    if (!result.ok) throw new Error(result.message);
    expect(applyInputs(config, result.inputs)).toEqual(config);
  });

  it("lays given inputs over the file's settings and adds allowed commands to its allow rules", () => {
    const config = {
      ...defaultConfig(),
      policy: {
        preset: "default" as const,
        allow: ["run_shell: make test"],
        deny: ["write_file: secrets/**"],
      },
      verify: "make test",
    };
    const result = read({
      trigger_phrase: "@bot",
      model: "claude-opus-5",
      max_turns: "7",
      max_cost_usd: "0.5",
      policy: "read-only",
      allowed_commands: "npm run lint",
      verify_command: "npm test",
    });
    if (!result.ok) throw new Error(result.message);
    expect(applyInputs(config, result.inputs)).toEqual({
      ...config,
      triggerPhrase: "@bot",
      model: "claude-opus-5",
      maxTurns: 7,
      maxCostUsd: 0.5,
      verify: "npm test",
      policy: {
        preset: "read-only",
        allow: ["run_shell: make test", "run_shell: npm run lint"],
        deny: ["write_file: secrets/**"],
      },
    });
  });
});

describe("the operator's ceilings over the inputs", () => {
  it("cap max_cost_usd and the model given as inputs", () => {
    const result = readInputs(
      (name) => ({ max_cost_usd: "50", model: "claude-opus-9" })[name as string] ?? "",
      { PATCHWRIGHT_MAX_COST_USD: "5", PATCHWRIGHT_MODELS: "claude-sonnet-4-5" },
    );
    if (!result.ok) throw new Error(result.message);
    const config = applyInputs(defaultConfig(), result.inputs);
    expect(config.maxCostUsd).toBe(5);
    expect(config.model).toBe("claude-sonnet-4-5");
    expect(config.capped).toContainEqual(expect.stringContaining("capped at $5 by the operator"));
  });
});
