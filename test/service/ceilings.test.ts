import { describe, expect, it } from "vitest";
import { readInputs } from "../../src/action/inputs.js";
import { parseServiceEnv, ServiceEnvError } from "../../src/service/env.js";

describe("the operator's ceilings in the environment", () => {
  it("start closed in the App for what a repository's writer could turn against the operator", () => {
    expect(parseServiceEnv({ HOME: "/h" }).ceilings).toEqual({
      maxCostUsd: undefined,
      models: undefined,
      pricingFromRepos: false,
      maxNetwork: "on",
      repoMcp: false,
    });
  });

  it("are read from their variables", () => {
    const settings = parseServiceEnv({
      HOME: "/h",
      PATCHWRIGHT_MAX_COST_USD: "7.5",
      PATCHWRIGHT_MODELS: "claude-sonnet-4-5, claude-haiku-* openai/*",
      PATCHWRIGHT_PRICING_FROM_REPOS: "true",
      PATCHWRIGHT_MAX_NETWORK: "Public",
      PATCHWRIGHT_REPO_MCP: "on",
    });
    expect(settings.ceilings).toEqual({
      maxCostUsd: 7.5,
      models: ["claude-sonnet-4-5", "claude-haiku-*", "openai/*"],
      pricingFromRepos: true,
      maxNetwork: "public",
      repoMcp: true,
    });
  });

  it("name a bad value, and want a model id first in the allow-list", () => {
    const bad = () =>
      parseServiceEnv({
        HOME: "/h",
        PATCHWRIGHT_MAX_COST_USD: "lots",
        PATCHWRIGHT_MODELS: "claude-*",
        PATCHWRIGHT_MAX_NETWORK: "some",
      });
    expect(bad).toThrow(ServiceEnvError);
    expect(bad).toThrow(/PATCHWRIGHT_MAX_COST_USD: expected US dollars/);
    expect(bad).toThrow(/PATCHWRIGHT_MODELS: the first entry \("claude-\*"\)/);
    expect(bad).toThrow(/PATCHWRIGHT_MAX_NETWORK: expected off, hosts, public, on/);
  });

  it("cap the Action's inputs too, from the workflow's env, and stay open where it sets none", () => {
    const open = readInputs(() => "", {});
    expect(open.ok && open.inputs.ceilings).toMatchObject({
      pricingFromRepos: true,
      repoMcp: true,
    });
    const read = readInputs((name) => (name === "max_cost_usd" ? "50" : ""), {
      PATCHWRIGHT_MAX_COST_USD: "5",
    });
    expect(read.ok).toBe(true);
    const bad = readInputs(() => "", { PATCHWRIGHT_MAX_NETWORK: "wide" });
    expect(bad).toEqual({
      ok: false,
      message: expect.stringContaining("env PATCHWRIGHT_MAX_NETWORK"),
    });
  });
});
