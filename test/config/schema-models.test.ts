// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} syntax
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";

describe("model, pricing and mcp_servers in the config", () => {
  it("reads provider models, prices and MCP servers", () => {
    const config = configSchema.parse({
      model: "openai/my-model",
      pricing: {
        "openai/my-model": { input: 1.5, output: 6, cache_read: 0.15, context_window: 65_536 },
      },
      mcp_servers: {
        tickets: { command: "node", args: ["server.mjs"], env: ["TICKETS_TOKEN"] },
        docs: {
          url: "https://docs.example.com/mcp",
          headers: { Authorization: "Bearer ${DOCS_TOKEN}" },
        },
      },
    });
    expect(config.model).toBe("openai/my-model");
    expect(config.pricing).toEqual({
      "openai/my-model": {
        input: 1.5,
        output: 6,
        cacheRead: 0.15,
        cacheWrite: undefined,
        contextWindow: 65_536,
      },
    });
    expect(config.mcpServers?.tickets).toMatchObject({
      command: "node",
      args: ["server.mjs"],
      env: ["TICKETS_TOKEN"],
      network: "off",
      timeout: 60,
    });
    expect(config.mcpServers?.docs).toMatchObject({ url: "https://docs.example.com/mcp" });
  });

  it("names what is wrong", () => {
    const problems = (input: unknown) => {
      const result = configSchema.safeParse(input);
      return result.success
        ? []
        : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    };
    expect(problems({ model: "azure/gpt-4.1" })).toEqual([
      expect.stringMatching(/^model: model "azure\/gpt-4.1": unknown provider "azure"/),
    ]);
    expect(problems({ pricing: { "openai/x": { input: -1, output: 2 } } })[0]).toMatch(
      /^pricing.openai\/x.input: .*not below 0/,
    );
    expect(problems({ mcp_servers: { "bad name": { command: "node" } } })[0]).toMatch(
      /server name/,
    );
    expect(
      problems({ mcp_servers: { old: { type: "sse", url: "https://x.example/sse" } } })[0],
    ).toMatch(/"sse" servers are not supported/);
  });
});
