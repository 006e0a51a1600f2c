import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ADD_BUG_FILES, fixAddSteps } from "../helpers/demo-repo.js";
import { type FakeAnthropic, startFakeAnthropic } from "../helpers/fake-anthropic-server.js";
import { createBareRepo, gitTestEnv, makeTempDir as makeGitTempDir } from "../helpers/git-repos.js";
import { callTool, reply } from "../helpers/model-script.js";
import { compiled } from "../helpers/source-build.js";
import { makeRepo, makeTempDir } from "../helpers/temp-dir.js";

const CLI = resolve(import.meta.dirname, "../../src/cli.ts");
const API_KEY = "sk-ant-test-key-0123456789abcdef";
const GITHUB_TOKEN = "ghs_faketoken0123456789abcdefghijklmnop";

let server: FakeAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The CLI compiled for this run (helpers/source-build.ts), or `fromSource` through tsx. */
function runCli(
  args: string[],
  env: Record<string, string>,
  fromSource = false,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const entry = fromSource ? ["--import", "tsx", CLI] : [compiled(CLI)];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
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

function lastMessage(body: unknown): unknown {
  return (body as { messages?: unknown[] } | undefined)?.messages?.at(-1);
}

async function failingRepo(): Promise<string> {
  return makeRepo({
    ...ADD_BUG_FILES,
  });
}

describe("patchwright run (end to end, scripted model over HTTP)", () => {
  it("fixes a failing test, writes the transcript and prints usage", async () => {
    const repo = await failingRepo();
    const home = await makeTempDir();
    server = await startFakeAnthropic([
      callTool("run_shell", { command: "npm test" }, { say: "Let me run the tests." }),
      callTool("read_file", { file_path: "src/add.js" }),
      callTool("edit_file", { file_path: "src/add.js", old_string: "a - b", new_string: "a + b" }),
      callTool("run_shell", { command: "npm test" }),
      reply("Fixed add() in src/add.js: it subtracted instead of adding. npm test passes."),
    ]);
    const transcript = join(home, "run.jsonl");
    const { code, stdout, stderr } = await runCli(
      ["run", "fix the failing test", "--cwd", repo, "--transcript", transcript],
      {
        HOME: home,
        ANTHROPIC_API_KEY: API_KEY,
        ANTHROPIC_BASE_URL: server.url,
        GITHUB_TOKEN,
      },
    );

    expect(stderr).toContain("turns: 5");
    expect(code).toBe(0);
    expect(await readFile(join(repo, "src/add.js"), "utf8")).toBe(
      "module.exports = { add: (a, b) => a + b };\n",
    );
    expect(stdout).toContain("› edit_file src/add.js");
    expect(stdout).toContain("+module.exports = { add: (a, b) => a + b };");
    expect(stdout).toContain("Fixed add() in src/add.js");
    expect(stderr).toMatch(/cost: \$\d+\.\d{4}/);
    expect(stderr).toMatch(/tokens: [\d,]+ in/);

    // The last npm test run (turn 4) passed, as the model saw it.
    const lastResults = JSON.stringify(lastMessage(server.requests[4]?.body));
    expect(lastResults).toContain("tests passed");
    // The key travels only in the request headers (this SDK sends it as a bearer token).
    expect(Object.values(server.requests[0]?.headers ?? {}).join(" ")).toContain(API_KEY);

    const lines = (await readFile(transcript, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "run_start", task: "fix the failing test" });
    expect(lines.at(-1)).toMatchObject({ type: "run_end", stopReason: "end_turn", turns: 5 });
    expect(lines.some((l) => l.type === "file_change" && l.path === "src/add.js")).toBe(true);
  });

  it("keeps secrets out of the agent's shell, the transcript and --json output", async () => {
    const repo = await failingRepo();
    const home = await makeTempDir();
    server = await startFakeAnthropic([
      callTool("run_shell", { command: "env; tr '\\0' '\\n' < /proc/self/environ" }),
      // Every process's environment, base64 so that redaction cannot be what hides it:
      // the CLI's own process holds the key, and only the sandbox keeps it out of reach.
      callTool("run_shell", { command: "cat /proc/[0-9]*/environ 2>/dev/null | base64 -w0" }),
      reply("done"),
    ]);
    const transcript = join(home, "t.jsonl");
    const { code, stdout } = await runCli(
      [
        "run",
        "show the environment",
        "--cwd",
        repo,
        "--policy",
        "trusted",
        "--json",
        "--transcript",
        transcript,
      ],
      {
        HOME: home,
        ANTHROPIC_API_KEY: API_KEY,
        ANTHROPIC_BASE_URL: server.url,
        GITHUB_TOKEN,
        PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----xyz",
      },
    );
    expect(code).toBe(0);
    const toolOutput = JSON.stringify(lastMessage(server.requests[1]?.body));
    expect(toolOutput).toContain("PATH=");
    const encoded = /stdout:\\n([A-Za-z0-9+/=]+)/.exec(
      JSON.stringify(lastMessage(server.requests[2]?.body)),
    )?.[1];
    const everyEnvironment = Buffer.from(encoded ?? "", "base64").toString("latin1");
    expect(everyEnvironment).toContain("PATH=");
    expect(everyEnvironment).not.toContain(API_KEY);
    expect(everyEnvironment).not.toContain(GITHUB_TOKEN);
    for (const secret of [API_KEY, GITHUB_TOKEN, "BEGIN RSA"]) {
      expect(toolOutput).not.toContain(secret);
      expect(stdout).not.toContain(secret);
      expect(await readFile(transcript, "utf8")).not.toContain(secret);
    }
    const events = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toContain("tool_result");
    expect(events.at(-1)).toMatchObject({ type: "summary", stopReason: "end_turn", turns: 3 });
  });

  it("stops cleanly on Ctrl+C: the running command is killed and the transcript says aborted", async () => {
    const repo = await failingRepo();
    const home = await makeTempDir();
    server = await startFakeAnthropic([
      // It says when it runs: Ctrl+C before that would stop it before it started.
      callTool("run_shell", { command: "touch started; sleep 30" }),
      reply("never reached"),
    ]);
    const transcript = join(home, "t.jsonl");
    const child = spawn(
      process.execPath,
      [
        compiled(CLI),
        "run",
        "wait",
        "--cwd",
        repo,
        "--policy",
        "trusted",
        "--transcript",
        transcript,
      ],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          ANTHROPIC_API_KEY: API_KEY,
          ANTHROPIC_BASE_URL: server.url,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    // Drained so the child never blocks on a full pipe; what it prints there is not the subject.
    child.stdout.resume();
    let interrupted = false;
    const code = await new Promise<number | null>((done) => {
      const started = setInterval(() => {
        // Once: a second Ctrl+C means "quit at once", without the transcript's end.
        if (!interrupted && existsSync(join(repo, "started"))) {
          interrupted = true;
          clearInterval(started);
          child.kill("SIGINT");
        }
      }, 20);
      child.on("close", (exit) => {
        clearInterval(started);
        done(exit);
      });
    });
    expect(code).toBe(130);
    expect(stderr).toContain("interrupted: stopping the run");
    // It ends as every run does: the totals, then where the transcript is.
    expect(stderr).toMatch(/turns: 1\ntokens: [\d,]+ in, .*\ncost: \$\d+\.\d{4}\n/);
    expect(stderr.endsWith(`transcript: ${transcript}\n`)).toBe(true);
    expect(server.requests).toHaveLength(1);
    const lines = (await readFile(transcript, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.type === "stop")).toMatchObject({ reason: "aborted" });
    expect(lines.find((l) => l.type === "tool_result")?.content).toMatch(/aborted/);
  });

  it("runs the whole job on a fresh clone with --repo: commits as the user, verify, push and a summary", async () => {
    const tmp = makeGitTempDir("pw-cli-repo-");
    try {
      const env = gitTestEnv(join(tmp.path, "home"));
      const repo = createBareRepo({
        root: tmp.path,
        env,
        files: {
          ...ADD_BUG_FILES,
        },
      });
      // The user's own git identity, which the job's git (no global config) cannot see.
      await appendFile(
        env.GIT_CONFIG_GLOBAL ?? "",
        "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n",
      );
      server = await startFakeAnthropic(fixAddSteps());
      const { code, stdout, stderr } = await runCli(
        [
          "run",
          "Fix add",
          "--repo",
          repo.dir,
          "--verify",
          "npm test",
          "--cache-dir",
          join(tmp.path, "cache"),
          "--transcript",
          join(tmp.path, "t.jsonl"),
        ],
        { ...env, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: server.url },
      );
      expect(stderr).toContain("Preparing the workspace…");
      expect(stderr).toContain("Verifying: npm test…");
      // Not a terminal: no status line, no control sequences.
      expect(`${stdout}${stderr}`).not.toContain("\u001b");
      expect(`exit ${code}\n${stdout}\n${stderr}`).toMatch(/^exit 0\n/);
      expect(stdout).toMatch(/pushed 1 commit\S* to agent\/fix-add \([0-9a-f]{7}\)/);
      expect(stdout).toContain("src/add.js +1 -1");
      expect(stdout).toContain("verify: npm test passed");
      expect(repo.show("agent/fix-add", "src/add.js")).toContain("a + b");
      expect(repo.show("main", "src/add.js")).toContain("a - b");
      const author = execFileSync("git", ["log", "-1", "--format=%an <%ae>", "agent/fix-add"], {
        cwd: repo.dir,
        env,
        encoding: "utf8",
      });
      expect(author.trim()).toBe("Ada Lovelace <ada@example.com>");
    } finally {
      tmp.remove();
    }
  });

  it("answers a bad flag with one line and exit code 2, as a real process", async () => {
    // Each usage error's wording is tested in process (test/cli/main.test.ts,
    // args.test.ts); this is the process's own exit code and its one line.
    const home = await makeTempDir();
    const badFlag = await runCli(["run", "task", "--max-turns", "many"], {
      HOME: home,
      ANTHROPIC_API_KEY: API_KEY,
    });
    expect(badFlag.code).toBe(2);
    expect(badFlag.stdout).toBe("");
    expect(badFlag.stderr.trim().split("\n")).toHaveLength(1);
    expect(badFlag.stderr).toContain("--max-turns must be a number");
  });

  it("prints its version, run from the source through tsx", async () => {
    const { version } = JSON.parse(
      await readFile(resolve(import.meta.dirname, "../../package.json"), "utf8"),
    );
    expect(await runCli(["--version"], {}, true)).toEqual({
      code: 0,
      stdout: `${version}\n`,
      stderr: "",
    });
  });
});
