import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai-server.js";
import { writeTicketsServer } from "../helpers/mcp-stdio-server.js";
import { callTool, reply } from "../helpers/model-script.js";
import { makeRepo, makeTempDir } from "../helpers/temp-dir.js";
import { runMain } from "./fake-io.js";

/**
 * `patchwright run` on a local checkout reads the checkout's own
 * .github/patchwright.yml (model, pricing, policy, mcp_servers) like the App
 * reads the default branch's, flags first, and runs on a non-Anthropic
 * provider without ever asking for ANTHROPIC_API_KEY.
 */

let server: FakeOpenAi | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function checkout(config: string) {
  const root = await makeRepo({ "a.txt": "a\n" });
  await mkdir(join(root, ".github"), { recursive: true });
  await writeFile(join(root, ".github", "patchwright.yml"), config);
  return root;
}

function env(url: string) {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    OPENAI_BASE_URL: `${url}/v1`,
    TICKETS_TOKEN: "tok-123",
  };
}

describe("patchwright run with the checkout's config", () => {
  it("uses the config's model, price, policy and MCP servers; --mcp-config adds servers", async () => {
    server = await startFakeOpenAi([
      callTool("mcp__tickets__list_tickets", {}, { id: "t1" }),
      callTool("mcp__tickets__close_ticket", { id: 7 }, { id: "t2" }),
      { ...reply("Closed #7."), usage: { inputTokens: 1_000_000, outputTokens: 0 } },
    ]);
    const root = await checkout(
      [
        "model: openai/house-model",
        "pricing:",
        '  "openai/house-model": { input: 0.5, output: 1, context_window: 65536 }',
        "policy:",
        "  allow: [mcp__tickets__close_ticket]",
        "mcp_servers:",
        "  tickets: { command: node, args: [tickets-server.mjs] }",
        "",
      ].join("\n"),
    );
    await writeTicketsServer(root);
    const outside = await makeTempDir();
    const extra = join(outside, "mcp.json");
    await writeFile(
      extra,
      JSON.stringify({ mcpServers: { broken: { command: "node", args: ["no-such-server.mjs"] } } }),
    );
    const transcript = join(outside, "t.jsonl");
    const run = await runMain(
      ["run", "close ticket 7", "--cwd", root, "--mcp-config", extra, "--transcript", transcript],
      {
        env: env(server.url),
      },
    );
    expect(run.stderr).toContain('MCP server "broken" did not start');
    expect(run.stderr).toContain(
      "MCP tools used: mcp__tickets__list_tickets, mcp__tickets__close_ticket",
    );
    expect(run.code).toBe(0);
    // The model id went out without its prefix, and the tool results came back allowed.
    const bodies = server.requests.map(
      (r) => r.body as { model: string; messages: Array<{ role: string; content: string }> },
    );
    expect(bodies[0]?.model).toBe("house-model");
    expect(bodies[2]?.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "#7 crash on empty input\n#9 typo in README",
      "closed #7",
    ]);
    // The cost was counted at the config's price: a million input tokens at $0.50.
    const lines = (await readFile(transcript, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const usage = lines.filter((line) => line.type === "usage").at(-1);
    expect(usage?.totalCostUsd).toBeCloseTo(0.5 + (100 * 2 * 0.5 + 20 * 2 * 1) / 1e6, 9);
  }, 30_000);

  it("does not let a checkout's config point an HTTP MCP server at this machine", async () => {
    server = await startFakeOpenAi([reply("Nothing to do.")]);
    // Something on the user's loopback (a dev database's admin API, a metadata proxy).
    let reached = 0;
    const local = createServer((_req, res) => {
      reached += 1;
      res.end("{}");
    });
    await new Promise<void>((done) => local.listen(0, "127.0.0.1", done));
    const port = (local.address() as AddressInfo).port;
    try {
      const root = await checkout(
        [
          "model: openai/house-model",
          "pricing:",
          '  "openai/house-model": { input: 0.5, output: 1, context_window: 65536 }',
          "mcp_servers:",
          `  internal: { url: "https://127.0.0.1:${port}/mcp" }`,
          "",
        ].join("\n"),
      );
      const run = await runMain(["run", "look around", "--cwd", root], { env: env(server.url) });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        "a repository's MCP server must be on a public address, not the host's own network",
      );
      expect(reached).toBe(0);
    } finally {
      await new Promise((done) => local.close(done));
    }
  }, 30_000);

  it("refuses to run a model with no known price, and flags win over the config", async () => {
    server = await startFakeOpenAi([reply("never asked")]);
    const root = await checkout("model: openai/house-model\n");
    const run = await runMain(
      ["run", "hi", "--cwd", root, "--transcript", join(await makeTempDir(), "t.jsonl")],
      { env: env(server.url) },
    );
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('no price is known for model "openai/house-model"');
    expect(server.requests).toHaveLength(0);
    // --model overrides the config's model: a bare id is Anthropic's, which needs its key.
    const bare = await runMain(["run", "hi", "--cwd", root, "--model", "claude-haiku-4-5"], {
      env: env(server.url),
    });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("ANTHROPIC_API_KEY is not set");
  });

  it("names a bad config field as a usage error", async () => {
    const root = await checkout("model: azure/gpt-4.1\n");
    const run = await runMain(["run", "hi", "--cwd", root], { env: { PATH: process.env.PATH } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown provider "azure"');
  });
});
