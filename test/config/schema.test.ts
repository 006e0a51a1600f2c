import { describe, expect, it } from "vitest";
import {
  configFileSchema,
  configSchema,
  DEFAULT_BOT_EMAIL,
  DEFAULT_BOT_NAME,
  defaultConfig,
  knownKeys,
} from "../../src/config/schema.js";

describe("configSchema", () => {
  it("gives every setting a default", () => {
    expect(defaultConfig()).toEqual({
      triggerPhrase: "@agent",
      label: "agent",
      model: "claude-sonnet-5-5",
      maxTurns: 50,
      maxCostUsd: 5,
      maxMinutes: 30,
      policy: { preset: "default", allow: [], deny: [] },
      setup: [],
      verify: null,
      verifyTimeoutSeconds: 900,
      network: { kind: "off" },
      setupNetwork: { kind: "on" },
      branchPrefix: "agent/",
      squash: false,
      draftOnFailure: true,
      allowedBots: [],
      answerUnauthorized: true,
      bot: { name: DEFAULT_BOT_NAME, email: DEFAULT_BOT_EMAIL },
      ciFix: { enabled: true, maxAttempts: 2, rerunWaitSeconds: 1800 },
      updateStrategy: "merge",
      signedCommits: false,
      planFirst: { mode: "never", maxFiles: 5 },
    });
  });

  it("reads the settings that keep pull requests mergeable", () => {
    const config = configSchema.parse({
      ci_fix: { max_attempts: 3, rerun_wait: "10m", enabled: false },
      update_strategy: "rebase",
      signed_commits: true,
    });
    expect(config.ciFix).toEqual({ enabled: false, maxAttempts: 3, rerunWaitSeconds: 600 });
    expect(config.updateStrategy).toBe("rebase");
    expect(config.signedCommits).toBe(true);
    expect(configSchema.safeParse({ update_strategy: "squash" }).success).toBe(false);
    expect(configSchema.safeParse({ ci_fix: { max_attempts: 0 } }).success).toBe(false);
  });

  it("reads max_cost_per_request_usd, the ceiling of a request's budget, and leaves it unset by default", () => {
    // Unset: a budget's ceiling is max_cost_usd, whatever an override or the operator made of it.
    expect(defaultConfig()).not.toHaveProperty("maxCostPerRequestUsd");
    const config = configSchema.parse({ max_cost_usd: 2, max_cost_per_request_usd: 12.5 });
    expect(config.maxCostUsd).toBe(2);
    expect(config.maxCostPerRequestUsd).toBe(12.5);
    expect(knownKeys([])).toContain("max_cost_per_request_usd");
  });

  it.each([[0], [-1], ["10"], [Number.POSITIVE_INFINITY], [null]])(
    "rejects max_cost_per_request_usd: %j",
    (value) => {
      const result = configFileSchema.safeParse({ max_cost_per_request_usd: value });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(["max_cost_per_request_usd"]);
    },
  );

  it("tends other bots' pull requests only when tend_bot_prs lists them", () => {
    expect(defaultConfig().tendBotPrs).toBeUndefined();
    expect(
      configSchema.parse({ tend_bot_prs: { bots: ["dependabot[bot]", "renovate[bot]"] } })
        .tendBotPrs,
    ).toEqual({ bots: ["dependabot[bot]", "renovate[bot]"], maxAttempts: 2 });
    expect(
      configSchema.parse({ tend_bot_prs: { bots: ["dependabot[bot]"], max_attempts: 1 } })
        .tendBotPrs?.maxAttempts,
    ).toBe(1);
    for (const bad of [
      { bots: [] },
      { bots: "dependabot[bot]" },
      { bots: ["dependabot[bot]"], max_attempts: 0 },
      { bots: ["dependabot[bot]"], max_attempts: 11 },
      { bots: ["dependabot[bot]"], rebase: true },
      {},
    ]) {
      expect(configSchema.safeParse({ tend_bot_prs: bad }).success, JSON.stringify(bad)).toBe(
        false,
      );
    }
  });

  it("fills the inner defaults of a partly written policy and bot identity", () => {
    const config = configSchema.parse({
      policy: { preset: "trusted" },
      bot: { name: "Patchy" },
    });
    expect(config.policy).toEqual({ preset: "trusted", allow: [], deny: [] });
    expect(config.bot).toEqual({ name: "Patchy", email: DEFAULT_BOT_EMAIL });
  });

  it("outputs camelCase names from the snake_case file", () => {
    const config = configSchema.parse({
      max_turns: 7,
      branch_prefix: "x/",
      draft_on_failure: false,
    });
    expect(config).toMatchObject({ maxTurns: 7, branchPrefix: "x/", draftOnFailure: false });
  });

  it("passes deps through untouched and leaves it out when absent", () => {
    expect(defaultConfig()).not.toHaveProperty("deps");
    const config = configSchema.parse({ deps: { schedule: "weekly", nested: { a: 1 } } });
    expect(config.deps).toEqual({ schedule: "weekly", nested: { a: 1 } });
  });

  it("trims text settings", () => {
    expect(configSchema.parse({ trigger_phrase: "  @bot  " }).triggerPhrase).toBe("@bot");
  });

  it.each([["agent/"], ["bots/patchwright/"], ["a.b/"]])(
    "accepts the branch prefix %j",
    (prefix) => {
      expect(configFileSchema.safeParse({ branch_prefix: prefix }).success).toBe(true);
    },
  );

  it.each([["agent"], ["/"], ["a b/"], ["a..b/"], ["-x/"], [".hidden/"], ["x.lock/"], ["a~/"]])(
    "rejects the branch prefix %j",
    (prefix) => {
      expect(configFileSchema.safeParse({ branch_prefix: prefix }).success).toBe(false);
    },
  );

  it("lists the known keys of each mapping for typo hints", () => {
    expect(knownKeys([])).toContain("max_turns");
    expect(knownKeys(["policy"])).toEqual(["preset", "allow", "deny"]);
    expect(knownKeys(["bot"])).toEqual(["name", "email"]);
    expect(knownKeys(["deps"])).toEqual([]);
  });
});
