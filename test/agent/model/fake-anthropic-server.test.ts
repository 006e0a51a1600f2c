import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicModel } from "../../../src/agent/model/anthropic.js";
import { startFakeAnthropic } from "../../helpers/fake-anthropic-server.js";
import { reply, text, toolUse } from "../../helpers/model-script.js";

const serverFile = join(import.meta.dirname, "../../helpers/fake-anthropic-server.ts");
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const userTurn = {
  system: [],
  tools: [],
  maxTokens: 64,
  messages: [{ role: "user" as const, content: [text("hi")] }],
};

describe("startFakeAnthropic", () => {
  it("answers non-streaming requests with a whole message", async () => {
    const server = await startFakeAnthropic([
      { content: [toolUse("list_files", { pattern: "*.ts" }, "t1")] },
    ]);
    cleanups.push(() => server.close());
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "claude-x", max_tokens: 10, messages: [] }),
    });
    expect(await response.json()).toMatchObject({
      type: "message",
      model: "claude-x",
      content: [{ type: "tool_use", id: "t1", name: "list_files", input: { pattern: "*.ts" } }],
      stop_reason: "tool_use",
    });
  });

  it("records unknown routes and answers them 404", async () => {
    const server = await startFakeAnthropic();
    cleanups.push(() => server.close());
    const response = await fetch(`${server.url}/v1/models`);
    expect(response.status).toBe(404);
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/models"]);
  });
});

describe("fake-anthropic-server as a process", () => {
  it("prints its URL, serves the script file and records requests", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fake-anthropic-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const scriptPath = join(dir, "script.json");
    const recordPath = join(dir, "requests.json");
    await writeFile(scriptPath, JSON.stringify({ steps: [reply("from a file")] }));

    const child = spawn(
      process.execPath,
      ["--import", "tsx", serverFile, scriptPath, "--record", recordPath],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    cleanups.push(() => stop(child));
    const url = await firstLine(child).then(
      (line) => /^listening (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1],
    );
    expect(url).toBeDefined();

    const model = createAnthropicModel({
      apiKey: "k",
      baseURL: url ?? "",
      model: "claude-haiku-4-5",
      sleep: async () => {},
    });
    const response = await model.complete(userTurn);
    expect(response.content).toEqual([text("from a file")]);
    const recorded = JSON.parse(await readFile(recordPath, "utf8"));
    expect(recorded).toMatchObject([
      { method: "POST", path: "/v1/messages", body: { model: "claude-haiku-4-5" } },
    ]);
  });
});

function firstLine(child: ChildProcess): Promise<string> {
  const stdout = child.stdout;
  if (!stdout) throw new Error("no stdout");
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: stdout });
    lines.once("line", (line) => {
      lines.close();
      resolve(line);
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
