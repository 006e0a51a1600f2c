import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAnthropicModel } from "../../../src/agent/model/anthropic.js";
import type {
  Message,
  ModelRequest,
  ModelStreamEvent,
  ToolSpec,
} from "../../../src/agent/model/model.js";
import { costOf } from "../../../src/agent/model/pricing.js";
import {
  type FakeAnthropic,
  type ServerStep,
  startFakeAnthropic,
} from "../../helpers/fake-anthropic-server.js";
import { text, toolUse, turn } from "../../helpers/model-script.js";
import { MODEL_TRANSPORTS } from "../../helpers/model-transports.js";
import { compiled } from "../../helpers/source-build.js";

const API_KEY = "sk-ant-test-not-a-real-key-7f3a";

let transport: typeof fetch | undefined;

let server: FakeAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(...steps: ServerStep[]) {
  server = await startFakeAnthropic(steps);
  const model = createAnthropicModel({
    apiKey: API_KEY,
    baseURL: server.url,
    model: "claude-sonnet-4-6",
    sleep: async () => {},
    ...(transport ? { fetch: transport } : {}),
  });
  return { server, model };
}

const tools: ToolSpec[] = [
  {
    name: "read_file",
    description: "Read a file",
    input_schema: { type: "object", properties: { file_path: { type: "string" } } },
  },
  {
    name: "edit_file",
    description: "Edit a file",
    input_schema: { type: "object", properties: { old_string: { type: "string" } } },
  },
];

function request(messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: ["You are patchwright.", "Repository notes: use pnpm."],
    messages,
    tools,
    maxTokens: 4096,
    ...extra,
  };
}

const userSays = (value: string): Message => ({
  role: "user",
  content: [{ type: "text", text: value }],
});

describe.each(MODEL_TRANSPORTS)("createAnthropicModel streaming over %s", (_name, via) => {
  beforeAll(() => {
    transport = via;
  });

  it("delivers text deltas through onEvent and assembles the full text", async () => {
    const { model } = await setup(turn([text("The bug is in parser.ts, line 42.")]));
    const events: ModelStreamEvent[] = [];
    const response = await model.complete(request([userSays("fix it")]), (event) =>
      events.push(event),
    );

    const deltas = events.filter((e) => e.type === "text_delta").map((e) => e.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("The bug is in parser.ts, line 42.");
    expect(response.content).toEqual([{ type: "text", text: "The bug is in parser.ts, line 42." }]);
    expect(response.stopReason).toBe("end_turn");
    expect(response.model).toBe("claude-sonnet-4-6");
  });

  it("assembles tool input JSON split across input_json_delta events", async () => {
    const input = {
      file_path: "src/parser.ts",
      old_string: 'if (a == b) {\n  return "x";\n}',
      replace_all: false,
    };
    const { model } = await setup(
      turn([text("Editing."), toolUse("edit_file", input, "toolu_01")]),
    );
    const events: ModelStreamEvent[] = [];
    const response = await model.complete(request([userSays("fix it")]), (event) =>
      events.push(event),
    );

    expect(response.content[1]).toEqual({
      type: "tool_use",
      id: "toolu_01",
      name: "edit_file",
      input,
    });
    expect(response.stopReason).toBe("tool_use");
    expect(events).toContainEqual({ type: "tool_use_start", id: "toolu_01", name: "edit_file" });
  });

  it("sends the request as a stream with the key header and no retries of its own", async () => {
    const { model, server } = await setup(turn([text("ok")]));
    await model.complete(request([userSays("hi")]));

    expect(server.requests).toHaveLength(1);
    const [recorded] = server.requests;
    expect(recorded?.path).toBe("/v1/messages");
    // This SDK version sends the API key as a bearer token.
    expect(recorded?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(recorded?.body).toMatchObject({
      model: "claude-sonnet-4-6",
      max_tokens: 4096,
      stream: true,
    });
  });

  it("maps usage and the answering model id, which prices the call", async () => {
    const usage = {
      inputTokens: 1200,
      outputTokens: 350,
      cacheReadTokens: 40_000,
      cacheWriteTokens: 2_000,
    };
    const { model } = await setup({
      content: [text("done")],
      usage,
      model: "claude-sonnet-4-6-20260217",
    });
    const response = await model.complete(request([userSays("hi")]));

    expect(response.usage).toEqual(usage);
    expect(response.model).toBe("claude-sonnet-4-6-20260217");
    // 1200*3 + 350*15 + 40000*0.30 + 2000*3.75, per million tokens
    expect(costOf(response.model, response.usage)).toBeCloseTo(0.02835, 10);
  });
});

describe.each(MODEL_TRANSPORTS)("createAnthropicModel prompt caching over %s", (_name, via) => {
  beforeAll(() => {
    transport = via;
  });

  it("marks the last tool, the last system block and the last block of the last message", async () => {
    const { model, server } = await setup(turn([text("ok")]));
    const messages: Message[] = [
      userSays("fix the parser"),
      {
        role: "assistant",
        content: [text("Reading."), toolUse("read_file", { file_path: "a.ts" }, "toolu_a")],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "   1 | const a = 1;" },
          { type: "text", text: "Also check b.ts" },
        ],
      },
    ];
    const sent = request(messages);
    const before = structuredClone(sent);
    await model.complete(sent);

    const body = server.requests[0]?.body as {
      tools: Array<Record<string, unknown>>;
      system: Array<Record<string, unknown>>;
      messages: Array<{ content: Array<Record<string, unknown>> }>;
    };
    const marked = { type: "ephemeral" };
    expect(body.tools.map((t) => t.cache_control)).toEqual([undefined, marked]);
    expect(body.system).toEqual([
      { type: "text", text: "You are patchwright." },
      { type: "text", text: "Repository notes: use pnpm.", cache_control: marked },
    ]);
    const allBlocks = body.messages.flatMap((m) => m.content);
    expect(allBlocks.filter((b) => b.cache_control)).toHaveLength(1);
    expect(body.messages[2]?.content[1]).toEqual({
      type: "text",
      text: "Also check b.ts",
      cache_control: marked,
    });
    // The caller's request is left as it was, so the next turn starts clean.
    expect(sent).toEqual(before);
  });
});

describe.each(MODEL_TRANSPORTS)("createAnthropicModel thinking over %s", (_name, via) => {
  beforeAll(() => {
    transport = via;
  });

  it("requests thinking with the budget and returns thinking blocks with their signatures", async () => {
    const thought = {
      type: "thinking" as const,
      thinking: "The loop bound is off by one.",
      signature: "EqQBCkYIARgCKkBsig==",
    };
    const { model, server } = await setup(turn([thought, text("Found it.")]));
    const events: ModelStreamEvent[] = [];
    const response = await model.complete(
      request([userSays("why?")], { thinkingBudget: 2048 }),
      (e) => events.push(e),
    );

    expect(server.requests[0]?.body).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
    expect(response.content[0]).toEqual(thought);
    expect(
      events
        .filter((e) => e.type === "thinking_delta")
        .map((e) => e.text)
        .join(""),
    ).toBe(thought.thinking);
  });

  it("sends earlier thinking and redacted thinking blocks back byte for byte", async () => {
    const { model, server } = await setup(turn([text("ok")]));
    const assistant: Message = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Plan: read then edit.\n", signature: "c2lnbmF0dXJlLTE=" },
        { type: "redacted_thinking", data: "ENCRYPTED-OPAQUE-DATA" },
        toolUse("read_file", { file_path: "a.ts" }, "toolu_t"),
      ],
    };
    const messages: Message[] = [
      userSays("go"),
      assistant,
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_t", content: "x" }] },
    ];
    await model.complete(request(messages, { thinkingBudget: 1024 }));

    const body = server.requests[0]?.body as { messages: Array<{ content: unknown[] }> };
    expect(body.messages[1]?.content).toEqual(assistant.content);
  });

  it("assembles a streamed redacted_thinking block", async () => {
    const { model } = await setup(
      turn([{ type: "redacted_thinking", data: "OPAQUE" }, text("Done.")]),
    );
    const response = await model.complete(request([userSays("go")], { thinkingBudget: 1024 }));
    expect(response.content).toEqual([
      { type: "redacted_thinking", data: "OPAQUE" },
      text("Done."),
    ]);
  });
});

describe("warmUp", () => {
  /**
   * Runs `lines` as a module in a process of its own (the test worker has
   * loaded undici long ago), `anthropic` the compiled anthropic.ts's URL;
   * what it printed, parsed.
   */
  function inFreshNode(lines: (anthropic: string) => string[]): unknown {
    const url = JSON.stringify(pathToFileURL(compiled("src/agent/model/anthropic.ts")).href);
    const ran = spawnSync(process.execPath, ["--input-type=module", "-e", lines(url).join("\n")], {
      encoding: "utf8",
    });
    expect(ran.stderr).toBe("");
    return JSON.parse(ran.stdout);
  }
  const undiciLoaded =
    "const undici = () => process.moduleLoadList.some((name) => name.includes('undici'));";

  it("loads the SDK and undici, the global fetch's library, without sending a request", () => {
    const seen = inFreshNode((anthropic) => [
      'import dc from "node:diagnostics_channel";',
      "let requests = 0;",
      'dc.subscribe("undici:request:create", () => requests++);',
      `const { createAnthropicModel } = await import(${anthropic});`,
      'const model = createAnthropicModel({ apiKey: "sk-ant-x", baseURL: "http://127.0.0.1:9", model: "claude-sonnet-4-6" });',
      undiciLoaded,
      "const before = undici();",
      "model.warmUp();",
      "for (let i = 0; i < 200 && !undici(); i++) await new Promise((wait) => setTimeout(wait, 10));",
      "console.log(JSON.stringify({ before, after: undici(), requests }));",
    ]);
    expect(seen).toEqual({ before: false, after: true, requests: 0 });
  });

  it("loads the SDK but not undici when the client has a fetch of its own (the Action's)", () => {
    const seen = inFreshNode((anthropic) => [
      `const { createAnthropicModel, loadAnthropicSdk } = await import(${anthropic});`,
      "const own = async () => { throw new Error('no request is sent'); };",
      'const model = createAnthropicModel({ apiKey: "sk-ant-x", model: "claude-sonnet-4-6", fetch: own });',
      undiciLoaded,
      "model.warmUp();",
      "await loadAnthropicSdk();",
      "await new Promise((wait) => setTimeout(wait, 50));",
      "console.log(JSON.stringify({ undici: undici() }));",
    ]);
    expect(seen).toEqual({ undici: false });
  });
});
