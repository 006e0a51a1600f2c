import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, issueComment, startHarness, stopHarness } from "../helpers/app-harness.js";
import { callTool, reply } from "../helpers/model-script.js";

/**
 * A repository's config asks for more than the App's operator allows: a
 * $1000 cap, a model off the operator's list, its own (free) prices, the
 * host's network, and an MCP server. It gets the ceilings, and the tracking
 * comment says what was capped.
 */

let harness: Harness | undefined;
let server: Server | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
  if (server) await new Promise((done) => server?.close(done));
  server = undefined;
});

async function hostService(): Promise<number> {
  server = createServer((_req, res) => res.end("HOST-SERVICE-REACHED"));
  await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
  return (server.address() as AddressInfo).port;
}

describe("red team: a repository's config against the operator's ceilings", () => {
  it("gets the operator's cost cap, model, prices, network and no MCP servers", async () => {
    const port = await hostService();
    harness = await startHarness({
      steps: [
        callTool("run_shell", {
          command: `curl -s -m 3 http://127.0.0.1:${port}/ || echo offline`,
        }),
        // Sonnet 4.5's list price: $6 for these tokens, over $5 and far under $1000.
        { ...callTool("list_files", { pattern: "*" }), usage: { inputTokens: 2_000_000 } },
        reply("never reached under the operator's cap"),
      ],
      github: {
        configYaml: [
          "model: claude-opus-9",
          "max_cost_usd: 1000",
          'pricing: { "claude-opus-9": { input: 0, output: 0 } }',
          "network: on",
          "setup_network: on",
          "policy: { preset: trusted }",
          "mcp_servers:",
          "  tickets: { command: node, args: [server.js], network: on }",
          "",
        ].join("\n"),
      },
      env: {
        PATCHWRIGHT_MAX_COST_USD: "5",
        PATCHWRIGHT_MODELS: "claude-sonnet-4-5, claude-haiku-*",
        PATCHWRIGHT_MAX_NETWORK: "off",
      },
    });
    const h = harness;
    await h.probot.receive({
      id: "d-ceilings",
      name: "issue_comment",
      payload: issueComment(h, "@agent fix it"),
    } as never);
    await h.idle();

    expect(h.asked).toEqual([{ model: "claude-sonnet-4-5", pricing: undefined }]);
    const [model] = h.models;
    expect(model?.requests).toHaveLength(2);
    expect(
      model?.requests[0]?.tools.map((t) => t.name).filter((n) => n.startsWith("mcp__")),
    ).toEqual([]);
    const shell = JSON.stringify(model?.requests[1]?.messages.at(-1));
    expect(shell).toContain("offline");
    expect(shell).not.toContain("HOST-SERVICE-REACHED");
    const report = (h.github.comments.get(7) ?? []).map((c) => c.body).join("\n");
    expect(report).toContain("capped at $5 by the operator (the repository asked for $1000)");
    expect(report).toContain("model: capped at claude-sonnet-4-5 by the operator");
    expect(report).toContain("pricing: ignored by the operator");
    expect(report).toContain(
      "network: capped at off by the operator (the repository asked for on)",
    );
    expect(report).toContain("setup_network: capped at off by the operator");
    expect(report).toContain("mcp_servers: not started (tickets)");
  });
});
