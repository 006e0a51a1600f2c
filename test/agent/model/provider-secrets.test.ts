import { describe, expect, it } from "vitest";
import { PROVIDER_ENV_NAMES, providerSecrets } from "../../../src/agent/model/factory.js";
import { createRedactor } from "../../../src/agent/redact.js";
import { buildShellEnv } from "../../../src/agent/tools/shell-env.js";
import { secretsInEnv } from "../../../src/secrets/patterns.js";

/** Every provider's credentials stay out of the agent's shell and out of what anyone reads. */
const HOST = {
  PATH: "/usr/bin:/bin",
  ANTHROPIC_API_KEY: "sk-ant-api03-provider-secret-1",
  OPENAI_API_KEY: "sk-proj-provider-secret-2",
  AWS_ACCESS_KEY_ID: "AKIAABCDEFGHIJKLMNOP",
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI-provider-secret-3",
  AWS_SESSION_TOKEN: "IQoJb3JpZ2luX2VjE-provider-secret-4",
  AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-provider-secret-5",
  GOOGLE_APPLICATION_CREDENTIALS: "/home/ci/gcp-service-account.json",
};

describe("provider credentials", () => {
  it("never reach the agent's shell environment", () => {
    const env = buildShellEnv(HOST);
    for (const name of PROVIDER_ENV_NAMES) expect(env).not.toHaveProperty(name);
    expect(env.PATH).toBe("/usr/bin:/bin");
  });

  it("are redacted from text shown to the model, the logs and the transcript", () => {
    // As the session and the CLI build it: secrets by name, plus every provider credential.
    const redact = createRedactor([
      ...secretsInEnv(HOST).map((secret) => secret.value),
      ...providerSecrets(HOST),
    ]);
    const leaked = Object.values(HOST).join(" ");
    const shown = redact(leaked);
    for (const name of [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "AWS_ACCESS_KEY_ID",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_SESSION_TOKEN",
      "AWS_BEARER_TOKEN_BEDROCK",
    ] as const) {
      expect(shown).not.toContain(HOST[name]);
    }
  });
});

describe("secretsInEnv", () => {
  it("knows the Bedrock API key by its name alone, as the App and the Action redact with it", () => {
    expect(secretsInEnv(HOST).map((s) => s.name)).toContain("AWS_BEARER_TOKEN_BEDROCK");
  });
});
