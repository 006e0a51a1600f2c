import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/events.js";
import {
  type McpServersInput,
  mcpServersSchema,
  resolveMcpServers,
} from "../../../src/agent/mcp/config.js";
import type { ToolResultBlock } from "../../../src/agent/model/model.js";
import { createScriptedModel, type ScriptedModel } from "../../../src/agent/model/scripted.js";
import type { PolicyConfig } from "../../../src/agent/policy/policy.js";
import { runAgentSession } from "../../../src/agent/session.js";
import { Checklist } from "../../../src/github/checklist.js";
import { type FakeDocsServer, startDocsServer } from "../../helpers/mcp-http-server.js";
import { writeTicketsServer } from "../../helpers/mcp-stdio-server.js";
import { callTool, reply } from "../../helpers/model-script.js";
import { realSandbox } from "../../helpers/sandbox.js";
import { makeRepo, makeTempDir } from "../../helpers/temp-dir.js";

/**
 * MCP servers in a real agent session: a stdio server written by the test
 * (run inside the real bubblewrap sandbox of the workspace) and an HTTP one
 * built with the SDK, their tools called by a scripted model under the
 * policy, with what came back read from the model's own next request.
 */

const DOCS_TOKEN = "docs-token-5f1d9c2e7a";
const TICKETS_TOKEN = "tickets-token-83ab41c0";
/** What a host holds that no server may see unless named. */
const HOST_SECRETS = {
  ANTHROPIC_API_KEY: "sk-ant-api03-host-key-never-passed",
  OPENAI_API_KEY: "sk-proj-host-openai-never-passed",
  AWS_SECRET_ACCESS_KEY: "host-aws-secret-never-passed",
  GOOGLE_APPLICATION_CREDENTIALS: "/etc/host-gcp.json",
};

let docs: FakeDocsServer | undefined;
afterEach(async () => {
  await docs?.close();
  docs = undefined;
});

async function session(
  model: ScriptedModel,
  servers: (root: string) => Promise<McpServersInput>,
  policy: Partial<PolicyConfig> = {},
) {
  const root = await makeRepo({ "a.txt": "a\n" });
  const launcher = await realSandbox();
  const envSource = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DOCS_TOKEN,
    TICKETS_TOKEN,
    PATCHWRIGHT_MCP_ENV: "DOCS_TOKEN,TICKETS_TOKEN,MISSING_TOKEN",
    ...HOST_SECRETS,
  };
  const resolved = resolveMcpServers(
    mcpServersSchema.parse(await servers(root)),
    envSource,
    "repository",
  );
  const events: AgentEvent[] = [];
  const done = await runAgentSession({
    root,
    task: "triage the tickets",
    model,
    policy: { preset: "default", allow: [], deny: [], ...policy },
    limits: { maxTurns: 10, maxCostUsd: 1, maxDurationMs: 60_000 },
    envSource,
    sandbox: launcher.open({ workspace: root, readOnly: [], network: { kind: "off" } }),
    clock: Date,
    onEvent: (event) => events.push(event),
    mcp: {
      ...resolved,
      sandboxFor: (network) => launcher.open({ workspace: root, readOnly: [], network }),
    },
  });
  return { root, done, events };
}

/** The tool results the model was sent, by tool_use id. */
function resultsSeen(model: ScriptedModel): Map<string, ToolResultBlock> {
  const out = new Map<string, ToolResultBlock>();
  for (const request of model.requests) {
    for (const message of request.messages) {
      if (message.role !== "user") continue;
      for (const block of message.content)
        if (block.type === "tool_result") out.set(block.tool_use_id, block);
    }
  }
  return out;
}

describe("MCP servers in an agent session", () => {
  it("calls stdio and HTTP tools under the policy; a denied call comes back with the reason", async () => {
    docs = await startDocsServer(DOCS_TOKEN);
    const docsUrl = docs.url;
    const model = createScriptedModel([
      callTool("mcp__tickets__list_tickets", {}, { id: "list" }),
      callTool("mcp__tickets__close_ticket", { id: 7 }, { id: "close" }),
      callTool("mcp__docs__search_docs", { query: "parse" }, { id: "search" }),
      callTool("mcp__docs__publish_page", { title: "Parsing" }, { id: "publish" }),
      reply("Triaged."),
    ]);
    const { done, events } = await session(
      model,
      async (root) => ({
        tickets: { command: "node", args: [await writeTicketsServer(root)] },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} syntax
        docs: { url: docsUrl, headers: { Authorization: "Bearer ${DOCS_TOKEN}" } },
      }),
      { allow: ["mcp__docs__publish_page"] },
    );
    expect(done.result.stopReason).toBe("end_turn");
    const seen = resultsSeen(model);
    expect(seen.get("list")).toMatchObject({
      content: "#7 crash on empty input\n#9 typo in README",
    });
    expect(seen.get("list")?.is_error).toBeFalsy();
    // Not read-only and no allow rule: denied under the default preset, with what to do.
    expect(seen.get("close")).toMatchObject({ is_error: true });
    expect(seen.get("close")?.content).toMatch(
      /^Denied by policy: `mcp__tickets__close_ticket` is not marked read-only by its server, so the default preset does not allow it; .*allow rule `mcp__tickets__close_ticket`/,
    );
    expect(seen.get("search")?.content).toBe("docs about parse: use parse() with a string");
    // Allowed by its rule; the server's echo of the header token is redacted before the model sees it.
    expect(seen.get("publish")?.content).toBe(
      'published "Parsing" (token [redacted: known-secret])',
    );
    expect(docs.published).toEqual(["Parsing"]);
    expect(new Set(docs.authorizations)).toEqual(new Set([`Bearer ${DOCS_TOKEN}`]));
    // The model saw the tools with their schemas, and the prompt introduced them.
    const specs = model.requests[0]?.tools ?? [];
    expect(specs.find((t) => t.name === "mcp__docs__search_docs")?.input_schema).toMatchObject({
      type: "object",
      properties: { query: { type: "string" } },
    });
    expect(model.requests[0]?.system[0]).toContain("mcp__tickets__list_tickets (read-only)");
    expect(done.result.mcp).toEqual(done.mcp);
    expect(done.mcp).toEqual({
      failures: [],
      used: ["mcp__tickets__list_tickets", "mcp__docs__search_docs", "mcp__docs__publish_page"],
    });
    // The tracking comment lists them like any other tool.
    const checklist = new Checklist();
    for (const event of events) checklist.apply(event);
    expect(checklist.render()).toContain("Using `mcp__docs__publish_page` (1)");
  }, 30_000);

  it("lets read-only tools run under read-only and everything under trusted", async () => {
    const script = () => [
      callTool("mcp__tickets__list_tickets", {}, { id: "list" }),
      callTool("mcp__tickets__close_ticket", { id: 9 }, { id: "close" }),
      reply("ok"),
    ];
    const servers = async (root: string) => ({
      tickets: { command: "node", args: [await writeTicketsServer(root)] },
    });
    const readOnly = createScriptedModel(script());
    await session(readOnly, servers, { preset: "read-only" });
    expect(resultsSeen(readOnly).get("list")?.is_error).toBeFalsy();
    expect(resultsSeen(readOnly).get("close")?.content).toMatch(
      /the read-only preset does not allow it/,
    );
    const trusted = createScriptedModel(script());
    await session(trusted, servers, { preset: "trusted" });
    expect(resultsSeen(trusted).get("close")).toMatchObject({ content: "closed #9" });
    // A deny rule wins even there.
    const denied = createScriptedModel(script());
    await session(denied, servers, { preset: "trusted", deny: ["mcp__tickets__*"] });
    expect(resultsSeen(denied).get("list")?.content).toMatch(
      /matches the deny rule `mcp__tickets__\*`/,
    );
  }, 30_000);

  it("runs stdio servers in the sandbox: only named variables, no host files, no credentials", async () => {
    const outside = await makeTempDir("pw-mcp-outside-");
    await writeFile(join(outside, "host-secret.txt"), "host only\n");
    const model = createScriptedModel([
      callTool("mcp__tickets__show_env", {}, { id: "env" }),
      callTool(
        "mcp__tickets__read_host_file",
        { path: join(outside, "host-secret.txt") },
        { id: "host" },
      ),
      reply("ok"),
    ]);
    await session(model, async (root) => ({
      tickets: { command: "node", args: [await writeTicketsServer(root)], env: ["TICKETS_TOKEN"] },
    }));
    const seen = resultsSeen(model);
    const env = JSON.parse(seen.get("env")?.content ?? "{}") as { names: string[]; token: string };
    expect(env.names).toContain("TICKETS_TOKEN");
    for (const name of [...Object.keys(HOST_SECRETS), "DOCS_TOKEN"])
      expect(env.names).not.toContain(name);
    // Passed to the server, but redacted from what the model reads.
    expect(env.token).toBe("[redacted: known-secret]");
    expect(seen.get("host")).toMatchObject({ is_error: true, content: "cannot read: ENOENT" });
  }, 30_000);

  it("goes on without a server that fails to start, and says why", async () => {
    const model = createScriptedModel([
      callTool("mcp__tickets__list_tickets", {}, { id: "list" }),
      callTool("mcp__tickets__slow", {}, { id: "slow" }),
      callTool("mcp__tickets__broken", {}, { id: "broken" }),
      reply("ok"),
    ]);
    const { done } = await session(model, async (root) => ({
      tickets: { command: "node", args: [await writeTicketsServer(root)], timeout: 1 },
      crashing: {
        command: "node",
        args: ["-e", "console.error('no database configured'); process.exit(3)"],
      },
      needsToken: {
        url: "http://127.0.0.1:9/mcp",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} syntax
        headers: { Authorization: "Bearer ${MISSING_TOKEN}" },
      },
    }));
    expect(done.result.stopReason).toBe("end_turn");
    expect(done.mcp?.failures).toEqual(
      expect.arrayContaining([
        { server: "needsToken", message: "MISSING_TOKEN is not set" },
        { server: "crashing", message: expect.stringContaining("no database configured") },
      ]),
    );
    const seen = resultsSeen(model);
    expect(seen.get("list")?.is_error).toBeFalsy();
    expect(seen.get("slow")).toMatchObject({
      is_error: true,
      content: expect.stringContaining('no answer from MCP server "tickets" within 1s'),
    });
    expect(seen.get("broken")).toMatchObject({
      is_error: true,
      content: "the ticket database is locked",
    });
    expect(model.requests[0]?.tools.some((t) => t.name.startsWith("mcp__crashing__"))).toBe(false);
  }, 30_000);
});
