import { afterEach, describe, expect, it } from "vitest";
import { type FakeBedrock, startFakeBedrock } from "../helpers/fake-bedrock-server.js";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai-server.js";
import { TICKETS_SERVER_SOURCE } from "../helpers/mcp-stdio-server.js";
import { callTool, httpError, reply } from "../helpers/model-script.js";
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
 * The bundle builds Bedrock's and Vertex's SDKs apart from the Messages
 * client, each with its own copy of Anthropic's SDK (scripts/bundle-action.mjs):
 * these runs go through that copy, whose errors are not the Messages
 * client's classes. A 4xx must still read as the API's answer (not retried),
 * and a 429 as one to try again.
 */

const bundle = useBundle();

const MODEL = "bedrock/anthropic.claude-haiku-4-5-20251001-v1:0";
const CREDENTIALS = { accessKeyId: "AKIDFAKEBEDROCK", region: "us-west-2" };

let world: ActionWorld | undefined;
let bedrock: FakeBedrock | undefined;
let openai: FakeOpenAi | undefined;
afterEach(async () => {
  await bedrock?.close();
  await openai?.close();
  await world?.close();
  world = undefined;
  bedrock = undefined;
  openai = undefined;
});

async function dispatch(steps: Parameters<typeof startFakeBedrock>[0]) {
  world = await startWorld();
  bedrock = await startFakeBedrock(steps, CREDENTIALS);
  return runAction(bundle.entry, world, {
    event: "workflow_dispatch",
    payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
    inputs: { github_token: TOKEN, prompt: "Tidy up", model: MODEL, max_turns: "3" },
    env: {
      AWS_REGION: CREDENTIALS.region,
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: "s3cret-bedrock-key",
      ANTHROPIC_BEDROCK_BASE_URL: bedrock.url,
    },
  });
}

describe("the bundled Action on a Bedrock model", () => {
  it("tries a throttled request again and ends the run with the model's answer", async () => {
    const run = await dispatch([httpError(429, "Too many requests"), reply("Nothing to change.")]);
    expect(run.code, run.log).toBe(0);
    expect(bedrock?.requests).toHaveLength(2);
    expect(run.log).toContain("Nothing to change.");
  }, 60_000);

  it("fails at once on a 4xx, naming Bedrock, without the secret key", async () => {
    const run = await dispatch([httpError(400, "The model id is not valid")]);
    expect(run.code).not.toBe(0);
    // Read as a connection failure, it would have been tried again (8 times).
    expect(bedrock?.requests).toHaveLength(1);
    expect(run.log).toMatch(/Amazon Bedrock error \(400/);
    expect(run.log).not.toContain("s3cret-bedrock-key");
  }, 60_000);
});

/**
 * Libraries the bundled Action imports only when a run needs them: the
 * OpenAI SDK (an openai/ model) and the MCP SDK's client and stdio transport
 * (a config that names a server). In the bundle each import goes through a
 * stand-in that loads main.ts first and re-exports the library
 * (scripts/bundle-action.mjs `lateImportsAfterMain`); a stand-in that lost an
 * export (the SDK's default, its client class) fails this run.
 */

const CONFIG = [
  "model: openai/house-model",
  "pricing:",
  '  "openai/house-model": { input: 0.5, output: 1, context_window: 65536 }',
  "mcp_servers:",
  "  tickets: { command: node, args: [tools/tickets.mjs] }",
  "",
].join("\n");

describe("the bundled Action on an OpenAI-compatible model, with the repository's MCP server", () => {
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
