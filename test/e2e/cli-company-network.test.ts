import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CORP_SECRETS,
  type CompanyNetwork,
  startCompanyNetwork,
} from "../helpers/company-network.js";
import { ADD_BUG_FILES, fixAddSteps } from "../helpers/demo-repo.js";
import { type FakeAnthropic, startFakeAnthropic } from "../helpers/fake-anthropic-server.js";
import { createBareRepo, gitTestEnv, makeTempDir } from "../helpers/git-repos.js";
import { callTool } from "../helpers/model-script.js";
import { compiled } from "../helpers/source-build.js";
import { startInspectingProxy } from "../helpers/tls-proxy.js";

/**
 * `patchwright run --repo` with setup and verify, default settings, on a
 * machine whose HTTPS goes through a proxy that inspects it, trusted only
 * through the global npmrc and the environment (test/helpers/company-network.ts):
 * setup installs from the company registry in the sandbox, verify passes,
 * and no credential from the host's npm or yarn files reaches the agent's
 * commands, the model or the output. And the CLI's own requests (the
 * model's) reach the internet only through the proxy, which Node 20's fetch
 * does not use by itself.
 */

const CLI = resolve(import.meta.dirname, "../../src/cli.ts");
const API_KEY = "sk-ant-test-key-0123456789abcdef";

let corp: CompanyNetwork;
let server: FakeAnthropic | undefined;

beforeAll(async () => {
  corp = await startCompanyNetwork();
}, 120_000);

afterAll(async () => {
  await server?.close();
  await corp?.close();
});

function runCli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, [compiled(CLI), ...args], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

describe("patchwright run --repo on a company network", () => {
  it("installs in setup through the inspecting proxy, verifies, pushes, and leaks no credential", async () => {
    const tmp = makeTempDir("pw-cli-corp-");
    try {
      // The host's git config, for the test's file:// remote; the rest is the company's.
      const env = { ...gitTestEnv(corp.host.home), ...corp.host.env };
      const repo = createBareRepo({
        root: tmp.path,
        env,
        files: {
          ...ADD_BUG_FILES,
          "package.json": JSON.stringify({
            name: "demo",
            private: true,
            scripts: { test: "node test.js" },
            dependencies: { "px-lib": "^1.0.0" },
          }),
          "test.js": [
            "const assert = require('node:assert');",
            "assert.strictEqual(require('px-lib'), '1.2.3');",
            "assert.strictEqual(require('./src/add.js').add(2, 3), 5);",
            "console.log('tests passed');",
            "",
          ].join("\n"),
        },
      });
      server = await startFakeAnthropic([
        // What the agent's own commands can see of the host's settings.
        callTool("run_shell", { command: "cat ~/.npmrc ~/.yarnrc.yml; env | sort" }),
        ...fixAddSteps(),
      ]);
      const asked = corp.proxy.asked.length;
      const { code, stdout, stderr } = await runCli(
        [
          "run",
          "Fix add",
          "--repo",
          repo.dir,
          "--setup",
          "npm install",
          "--verify",
          "npm test",
          // So the agent may look outside the workspace: what the sandbox lets it see is the subject.
          "--policy",
          "trusted",
          "--cache-dir",
          join(tmp.path, "cache"),
        ],
        { ...env, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: server.url },
      );
      expect(`exit ${code}\n${stdout}\n${stderr}`).toMatch(/^exit 0\n/);
      expect(stderr).toContain("Running setup: npm install…");
      expect(stdout).toContain("verify: npm test passed");
      expect(repo.show("agent/fix-add", "src/add.js")).toContain("a + b");
      expect(corp.proxy.asked.slice(asked)).toContain("registry.corp.test:443");
      // The agent saw the kept settings, and nothing else of those files.
      const seen = JSON.stringify(server.requests.map((request) => request.body));
      expect(seen).toContain("registry=https://registry.corp.test/");
      for (const secret of Object.values(CORP_SECRETS)) {
        expect(seen).not.toContain(secret);
        expect(stdout).not.toContain(secret);
        expect(stderr).not.toContain(secret);
      }
    } finally {
      tmp.remove();
    }
  }, 180_000);

  it("sends the model's requests through the machine's proxy, with its password, never in the output", async () => {
    const tmp = makeTempDir("pw-cli-corp-");
    server = await startFakeAnthropic(fixAddSteps());
    // The model at its real address, which only the company's proxy reaches.
    const proxy = await startInspectingProxy({
      ca: corp.ca,
      routes: { "api.anthropic.com:443": server.url },
      credentials: { user: "corp", password: CORP_SECRETS.proxyPassword },
    });
    try {
      const env = { ...gitTestEnv(corp.host.home), ...corp.host.env };
      const repo = createBareRepo({ root: tmp.path, env, files: ADD_BUG_FILES });
      const proxyUrl = proxy.url.replace("http://", `http://corp:${CORP_SECRETS.proxyPassword}@`);
      const { code, stdout, stderr } = await runCli(
        ["run", "Fix add", "--repo", repo.dir, "--cache-dir", join(tmp.path, "cache")],
        { ...env, ANTHROPIC_API_KEY: API_KEY, HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl },
      );
      expect(`exit ${code}\n${stdout}\n${stderr}`).toMatch(/^exit 0\n/);
      expect(proxy.asked).toContain("api.anthropic.com:443");
      expect(proxy.refused).toBe(0);
      expect(server.requests.length).toBeGreaterThan(0);
      expect(repo.show("agent/fix-add", "src/add.js")).toContain("a + b");
      // undici's "experimental" notice is not the user's business.
      expect(stderr).not.toMatch(/experimental/i);
      expect(`${stdout}${stderr}`).not.toContain(CORP_SECRETS.proxyPassword);
    } finally {
      await proxy.close();
      tmp.remove();
    }
  }, 120_000);
});
