import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai-server.js";
import { TICKETS_SERVER_SOURCE } from "../helpers/mcp-stdio-server.js";
import { callTool, reply } from "../helpers/model-script.js";
import {
  type ActionWorld,
  DEMO_FILES,
  eventPayload,
  runAction,
  startWorld,
  TOKEN,
  useBundle,
} from "./harness.js";

/**
 * Libraries the bundled Action imports only when a run needs them: the
 * OpenAI SDK (an openai/ model) and the MCP SDK's client and stdio transport
 * (a config that names a server). In the bundle each import goes through a
 * stand-in that loads main.ts first and re-exports the library
 * (scripts/bundle-action.mjs `lateImportsAfterMain`); a stand-in that lost an
 * export (the SDK's default, its client class) fails this run.
 */

const bundle = useBundle();

const CONFIG = [
  "model: openai/house-model",
  "pricing:",
  '  "openai/house-model": { input: 0.5, output: 1, context_window: 65536 }',
  "mcp_servers:",
  "  tickets: { command: node, args: [tools/tickets.mjs] }",
  "",
].join("\n");

let world: ActionWorld | undefined;
let openai: FakeOpenAi | undefined;
afterEach(async () => {
  await openai?.close();
  await world?.close();
  world = undefined;
  openai = undefined;
});

describe("the bundled Action's lazily loaded libraries", () => {
  it("asks an OpenAI-compatible model and calls the repository's MCP server's tool", async () => {
    world = await startWorld({
      files: { ...DEMO_FILES, "tools/tickets.mjs": TICKETS_SERVER_SOURCE },
      github: { configYaml: CONFIG },
    });
    openai = await startFakeOpenAi([
      callTool("mcp__tickets__list_tickets", {}, { id: "list" }),
      reply("Ticket #7 is the one to fix first."),
    ]);
    const run = await runAction(bundle.entry, world, {
      event: "workflow_dispatch",
      payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
      inputs: { github_token: TOKEN, prompt: "Which ticket comes first?", max_turns: "3" },
      env: { OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: "sk-openai-fake-key" },
    });

    expect(run.code, run.log).toBe(0);
    const [first, second] = openai.requests as Array<{ body: OpenAiRequest }>;
    expect(first?.body.model).toBe("house-model");
    expect(first?.body.tools?.map((tool) => tool.function.name)).toContain(
      "mcp__tickets__list_tickets",
    );
    // The tool's answer came back from the server the config names, through the MCP client.
    expect(JSON.stringify(second?.body.messages.at(-1))).toContain("#7 crash on empty input");
    expect(openai.requests).toHaveLength(2);
    expect(run.log).toContain("Ticket #7 is the one to fix first.");
  }, 60_000);
});

interface OpenAiRequest {
  model: string;
  messages: unknown[];
  tools?: Array<{ function: { name: string } }>;
}
