import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createScriptedModel, type ScriptedModel } from "../../src/agent/model/scripted.js";
import { createRedactor } from "../../src/agent/redact.js";
import { runAgentSession } from "../../src/agent/session.js";
import { defineTool } from "../../src/agent/tools/define-tool.js";
import { defaultTools } from "../../src/agent/tools/index.js";
import { openTranscript } from "../../src/agent/transcript.js";
import { findSecretsInNewCommits } from "../../src/git/push/secret-scan.js";
import { callTool, reply } from "../helpers/model-script.js";
import { sandboxFor } from "../helpers/sandbox.js";
import {
  allFamilies,
  HIDDEN,
  leaks,
  secretFamilies,
  withHiddenCharacters,
} from "../helpers/secret-families.js";
import { git, makeRepo, makeTempDir } from "../helpers/temp-dir.js";

/**
 * Secrets in untrusted text, channel by channel: every token family of the
 * rule set (GitHub, an AWS key pair, a Google service account, Azure
 * connection strings, npm, PyPI, Slack, Stripe, OpenAI, Anthropic, private
 * keys, passwords in URLs), with hidden characters, sent through release
 * notes in a task, the project's instructions, command output, a file read,
 * an MCP server's result and tool description, the transcript and a commit
 * about to be pushed. Every model request is searched for any piece of any
 * of them. Each failed before the detector was wired in (the AWS secret key,
 * the npm, PyPI, Stripe, Azure and service account values went through).
 */

const families = secretFamilies();
const LOG = withHiddenCharacters(allFamilies(families));

/** Everything a model was sent: system prompt, messages, tool descriptions. */
function sent(model: ScriptedModel): string {
  return model.requests.map((request) => JSON.stringify(request)).join("\n");
}

function expectClean(text: string): void {
  expect(leaks(families, text)).toEqual([]);
  expect(text).not.toMatch(HIDDEN);
  // The token split by a zero-width space: no piece of it either.
  expect(text).not.toMatch(/ghp_[A-Za-z0-9]{6,}/);
}

async function session(
  model: ScriptedModel,
  extra: Partial<Parameters<typeof runAgentSession>[0]> = {},
  files: Record<string, string> = { "a.txt": "a\n", "ci.log": LOG },
) {
  const root = await makeRepo(files);
  const done = await runAgentSession({
    root,
    task: "Update the dependency.",
    model,
    policy: { preset: "default", allow: ["run_shell: cat *"], deny: [] },
    limits: { maxTurns: 6, maxCostUsd: 1, maxDurationMs: 60_000 },
    envSource: { PATH: process.env.PATH, HOME: process.env.HOME },
    sandbox: await sandboxFor(root),
    clock: Date,
    ...extra,
  });
  return { root, done };
}

describe("red team: secrets and hidden characters in every channel to the model", () => {
  it("release notes and API diffs in the task", async () => {
    const model = createScriptedModel([reply("Read it.")]);
    await session(model, {
      task: `Fix the build after the bump.\n<release-notes>\n${LOG}\n</release-notes>\n<api-diff>\n${LOG}\n</api-diff>`,
    });
    expect(model.requests).toHaveLength(1);
    expectClean(sent(model));
    expect(sent(model)).toContain("[redacted: aws-secret-access-key]");
  });

  it("the project's instructions in the system prompt", async () => {
    const model = createScriptedModel([reply("Read it.")]);
    await session(model, { instructions: [{ path: "AGENTS.md", content: LOG }] });
    expectClean(sent(model));
  });

  it("command output, with its hidden characters shown rather than passed on", async () => {
    const model = createScriptedModel([
      callTool("run_shell", { command: "cat ci.log" }),
      reply("Saw the log."),
    ]);
    await session(model);
    const output = JSON.stringify(model.requests[1]?.messages.at(-1));
    expect(output).toContain("[redacted: ");
    expect(output).toContain("[hidden: U+202E]");
    expectClean(sent(model));
  });

  it("a file read", async () => {
    const model = createScriptedModel([
      callTool("read_file", { file_path: "ci.log" }),
      reply("Read it."),
    ]);
    await session(model);
    expect(leaks(families, sent(model))).toEqual([]);
  });

  it("an MCP server's result and its tool's description", async () => {
    const tracker = defineTool({
      name: "mcp__tracker__get_issue",
      description: `Gets an issue.${withHiddenCharacters(families[0]?.text ?? "")}`,
      input: z.object({ id: z.string() }),
      readOnly: true,
      summarize: (input) => `issue ${input.id}`,
      run: async () => LOG,
    });
    const model = createScriptedModel([
      callTool("mcp__tracker__get_issue", { id: "7" }),
      reply("Got it."),
    ]);
    await session(model, {
      tools: [...defaultTools(), tracker],
      policy: { preset: "trusted", allow: [], deny: [] },
    });
    expect(JSON.stringify(model.requests[1]?.messages.at(-1))).toContain("[redacted: ");
    expectClean(sent(model));
  });

  it("the transcript, whatever an event carries", async () => {
    const path = join(await makeTempDir("pw-transcript-"), "run.jsonl");
    const transcript = await openTranscript(path, createRedactor(), Date);
    transcript.write({ type: "run_start", task: LOG, model: "m", cwd: "/w", policy: "default" });
    transcript.write({
      type: "tool_call",
      turn: 1,
      id: "c1",
      name: "write_file",
      input: { file_path: "x", content: LOG },
      summary: "write x",
    });
    await transcript.close();
    expect(leaks(families, await readFile(path, "utf8"))).toEqual([]);
  });

  it("a commit about to be pushed: each family blocks it, what the remote has does not", async () => {
    const fixture = families.find((f) => f.family === "a private key")?.text ?? "";
    const dir = await makeRepo({ "fixture.pem": fixture, "README.md": "demo\n" });
    git(dir, "update-ref", "refs/remotes/origin/main", "HEAD");
    // An edit next to a key the remote already has is no new secret.
    await writeFile(join(dir, "fixture.pem"), `${fixture}\n# rotated yearly\n`);
    await Promise.all(
      families.map((family, i) => writeFile(join(dir, `leak-${i}.txt`), family.text)),
    );
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "add config");
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" };
    const findings = await findSecretsInNewCommits({ dir, env, secrets: [] });
    const files = new Set(findings.map((f) => f.path));
    for (const [i, family] of families.entries()) {
      expect(files.has(`leak-${i}.txt`), family.family).toBe(true);
    }
    expect(files.has("fixture.pem")).toBe(false);
  });
});

describe("red team: redaction never writes a placeholder into a file", () => {
  const ENV = "AWS_SECRET_ACCESS_KEY=";

  const key = families.find((f) => f.family === "an AWS key pair")?.secrets[1] ?? "";
  const trusted = { policy: { preset: "trusted" as const, allow: [], deny: [] } };

  it("an edit that quotes the placeholder changes the file around the real value", async () => {
    const content = `region=eu-west-1\n${ENV}${key}\nretries=3\n`;
    const model = createScriptedModel([
      callTool("read_file", { file_path: "settings.env" }),
      callTool("edit_file", {
        file_path: "settings.env",
        old_string: `${ENV}[redacted: aws-secret-access-key]\nretries=3`,
        new_string: `${ENV}[redacted: aws-secret-access-key]\nretries=5`,
      }),
      callTool("write_file", {
        file_path: "settings.env",
        content: `region=us-east-1\n${ENV}[redacted: aws-secret-access-key]\nretries=5\n`,
      }),
      reply("Done."),
    ]);
    const { root } = await session(model, trusted, { "settings.env": content });
    const seen = sent(model);
    expect(seen).toContain("[redacted: aws-secret-access-key]");
    expect(seen).not.toContain(key);
    expect(await readFile(join(root, "settings.env"), "utf8")).toBe(
      `region=us-east-1\n${ENV}${key}\nretries=5\n`,
    );
  });

  it("a placeholder with no value in the file is refused, not written", async () => {
    const model = createScriptedModel([
      callTool("write_file", {
        file_path: "new.env",
        content: `${ENV}[redacted: aws-secret-access-key]\n`,
      }),
      reply("Done."),
    ]);
    const { root } = await session(model, trusted);
    const result = JSON.stringify(model.requests[1]?.messages.at(-1));
    expect(result).toContain("write_file was not run");
    await expect(readFile(join(root, "new.env"), "utf8")).rejects.toThrow();
  });
});
