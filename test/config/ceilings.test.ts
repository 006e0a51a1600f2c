import { describe, expect, it } from "vitest";
import {
  applyCeilings,
  capNetwork,
  modelAllowed,
  type OperatorCeilings,
} from "../../src/config/ceilings.js";
import { parseConfig } from "../../src/config/parse.js";
import type { RepoConfig } from "../../src/config/schema.js";
import { networkPolicy } from "../../src/sandbox/network.js";

/** A repository that asks for everything. */
const GREEDY = `
model: claude-opus-9
max_cost_usd: 1000
pricing:
  "claude-opus-9": { input: 0, output: 0 }
network: on
setup_network: public
mcp_servers:
  tickets: { command: node, args: [server.js], network: on }
  docs: { url: "https://docs.example.com/mcp" }
`;

async function config(text: string): Promise<RepoConfig> {
  const parsed = await parseConfig(text);
  if (!parsed.ok) throw parsed.error;
  return parsed.config;
}

const closed: OperatorCeilings = {
  maxCostUsd: 5,
  models: ["claude-sonnet-4-5", "claude-haiku-*", "openai/*"],
  pricingFromRepos: false,
  maxNetwork: "off",
  repoMcp: false,
};

describe("operator ceilings", () => {
  it("lower a repository's max_cost_usd to the ceiling and say so", async () => {
    const capped = applyCeilings(await config(GREEDY), closed);
    expect(capped.maxCostUsd).toBe(5);
    expect(capped.capped).toContainEqual(
      expect.stringContaining(
        "max_cost_usd: capped at $5 by the operator (the repository asked for $1000)",
      ),
    );
  });

  it("lower a repository's max_cost_per_request_usd to the ceiling too", async () => {
    const capped = applyCeilings(await config(`${GREEDY}max_cost_per_request_usd: 200\n`), closed);
    expect(capped.maxCostPerRequestUsd).toBe(5);
    expect(capped.capped).toContainEqual(
      "max_cost_per_request_usd: capped at $5 by the operator (the repository asked for $200)",
    );
    const within = applyCeilings(await config("max_cost_per_request_usd: 3\n"), closed);
    expect(within.maxCostPerRequestUsd).toBe(3);
    expect(within.capped?.join("\n")).not.toContain("max_cost");
  });

  it("give a model outside the allow-list the operator's first model", async () => {
    expect(applyCeilings(await config(GREEDY), closed).model).toBe("claude-sonnet-4-5");
    expect(applyCeilings(await config("model: claude-haiku-5\n"), closed).model).toBe(
      "claude-haiku-5",
    );
    expect(applyCeilings(await config("model: openai/gpt-4.1\n"), closed).model).toBe(
      "openai/gpt-4.1",
    );
    expect(modelAllowed("claude-haiku-5", ["anthropic/*"])).toBe(true);
    expect(modelAllowed("bedrock/us.anthropic.claude-opus-9", ["anthropic/*"])).toBe(false);
  });

  it("drop a repository's pricing unless the operator takes prices from repositories", async () => {
    expect(applyCeilings(await config(GREEDY), closed).pricing).toBeUndefined();
    expect(
      applyCeilings(await config(GREEDY), { ...closed, pricingFromRepos: true }).pricing,
    ).toEqual({
      "claude-opus-9": expect.objectContaining({ input: 0, output: 0 }),
    });
  });

  it("hold network, setup_network and an MCP server's network to the ceiling", async () => {
    const off = applyCeilings(await config(GREEDY), { ...closed, repoMcp: true });
    expect(off.network).toEqual({ kind: "off" });
    expect(off.setupNetwork).toEqual({ kind: "off" });
    expect(off.mcpServers?.tickets).toMatchObject({ network: "off" });
    // Reached from the host: no network means no HTTP server either.
    expect(off.mcpServers?.docs).toBeUndefined();
    const pub = applyCeilings(await config(GREEDY), {
      ...closed,
      repoMcp: true,
      maxNetwork: "public",
    });
    expect(pub.network).toEqual({ kind: "hosts", hosts: [], anyPublic: true });
    expect(pub.mcpServers?.tickets).toMatchObject({ network: "public" });
    expect(pub.capped).toContainEqual(
      "network: capped at public by the operator (the repository asked for on)",
    );
    const hosts = networkPolicy(["registry.npmjs.org", "*"]);
    expect(capNetwork(hosts, "hosts")).toEqual(networkPolicy(["registry.npmjs.org"]));
    expect(capNetwork(networkPolicy("on"), "hosts")).toEqual({ kind: "off" });
    expect(capNetwork(hosts, "on")).toBe(hosts);
  });

  it("start no repository MCP server where the operator allows none", async () => {
    const capped = applyCeilings(await config(GREEDY), closed);
    expect(capped.mcpServers).toBeUndefined();
    expect(capped.capped).toContainEqual(expect.stringContaining("mcp_servers: not started"));
  });

  it("leave a config within them exactly as it was", async () => {
    const modest = await config(
      "model: claude-sonnet-4-5\nmax_cost_usd: 2\nnetwork: [registry.npmjs.org]\n",
    );
    expect(applyCeilings(modest, { ...closed, maxNetwork: "on" })).toEqual(modest);
    const none: OperatorCeilings = { pricingFromRepos: true, maxNetwork: "on", repoMcp: true };
    expect(applyCeilings(await config(GREEDY), none)).toEqual(await config(GREEDY));
  });
});
