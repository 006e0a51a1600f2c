import { appendFileSync, chmodSync, existsSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptedModel, type ScriptStep } from "../../src/agent/model/scripted.js";
import type { ChangeInput } from "../../src/change/change.js";
import { runChange } from "../../src/change/run-change.js";
import { startGitHttpServer } from "../helpers/git-http-server.js";
import { createBareRepo, gitTestEnv, makeTempDir, type TempDir } from "../helpers/git-repos.js";
import { callTool, reply } from "../helpers/model-script.js";
import { realSandbox } from "../helpers/sandbox.js";

/**
 * Attacks on the job's own git, which holds the token: config a workspace's
 * code (or, unsandboxed, the agent) could write where git reads it, and
 * secrets carried out in a commit. Each succeeded before the job's git
 * ignored global config and before pushes were scanned.
 */

const TOKEN = "ghs_redteamtoken0123456789abcdefABCDEF";
const API_KEY = "sk-ant-redteam-key-0123456789abcdef";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function world() {
  const tmp: TempDir = makeTempDir("pw-redteam-git-");
  cleanups.push(() => tmp.remove());
  const env = gitTestEnv(join(tmp.path, "home"));
  createBareRepo({ root: tmp.path, env, files: { "a.txt": "a\n" } });
  const git = await startGitHttpServer({ projectRoot: tmp.path, token: TOKEN, env });
  cleanups.push(() => git.close());
  return { tmp, env, url: git.url("repo"), git };
}

function input(url: string, steps: ScriptStep[]): ChangeInput {
  return {
    cloneUrl: url,
    token: TOKEN,
    baseBranch: "main",
    branchTitle: "attack",
    branchPrefix: "agent/",
    task: "attack",
    model: createScriptedModel(steps),
    policy: { preset: "trusted", allow: [], deny: [] },
    limits: { maxTurns: 10, maxCostUsd: 5, maxDurationMs: 60_000 },
    setup: [],
    verify: null,
    network: { kind: "off" },
    setupNetwork: { kind: "off" },
    squash: false,
    identity: { name: "patchwright[bot]", email: "bot@example.com" },
    push: true,
  };
}

describe("red team: the job's own git", () => {
  it("ignores a global git config that would proxy the push or run fsmonitor with the token", async () => {
    const { tmp, env, url, git } = await world();
    const proxied: string[] = [];
    const proxy: Server = createServer((req, res) => {
      proxied.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
      res.writeHead(502).end();
    });
    await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
    cleanups.push(() => new Promise((done) => proxy.close(done)));
    const marker = join(tmp.path, "fsmonitor-ran");
    const monitor = join(tmp.path, "monitor.sh");
    writeFileSync(monitor, `#!/bin/sh\nenv > '${marker}'\n`);
    chmodSync(monitor, 0o755);
    // What code with write access to HOME would plant (the unsandboxed CLI's agent can).
    appendFileSync(
      env.GIT_CONFIG_GLOBAL as string,
      `[http]\n\tproxy = http://127.0.0.1:${(proxy.address() as AddressInfo).port}\n[core]\n\tfsmonitor = ${monitor}\n`,
    );
    const result = await runChange(
      {
        cacheDir: join(tmp.path, "cache"),
        sandbox: await realSandbox(),
        secrets: [],
        envSource: env,
        clock: Date,
      },
      input(url, [
        callTool("write_file", { file_path: "b.txt", content: "b\n" }),
        reply("Added b."),
      ]),
    );
    expect(result.error).toBeUndefined();
    expect(result.push?.pushed).toBe(true);
    expect(proxied).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    expect(git.requests.some((r) => r.authorized)).toBe(true);
  });

  it("refuses to push a commit that carries a secret, naming where, never the value", async () => {
    const { tmp, env, url, git } = await world();
    const result = await runChange(
      {
        cacheDir: join(tmp.path, "cache"),
        sandbox: await realSandbox(),
        secrets: [{ name: "ANTHROPIC_API_KEY", value: API_KEY }],
        envSource: { ...env, ANTHROPIC_API_KEY: API_KEY },
        clock: Date,
      },
      input(url, [
        // The key is not in the agent's reach, so it comes from the thread (a
        // prompt injection): verbatim, and as any GitHub token would look.
        callTool("write_file", { file_path: "config.js", content: `key = "${API_KEY}";\n` }),
        callTool("write_file", {
          file_path: "deploy.txt",
          content: "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
        }),
        reply("Configured."),
      ]),
    );
    expect(result.push).toBeUndefined();
    expect(result.error?.stage).toBe("push");
    expect(result.error?.message).toContain("ANTHROPIC_API_KEY in the file config.js");
    expect(result.error?.message).toContain("github-token in the file deploy.txt");
    expect(result.error?.message).not.toContain(API_KEY);
    expect(result.error?.message).not.toContain("ghp_abcdef");
    expect(
      git.requests.filter((r) => r.method === "POST" && r.path.endsWith("receive-pack")),
    ).toEqual([]);
  });
});
