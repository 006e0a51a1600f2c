import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createRunShellTool, runShellTool } from "../../../src/agent/tools/run-shell.js";
import { buildShellEnv } from "../../../src/agent/tools/shell-env.js";
import { describeBothWays } from "../../helpers/spawn-helper-up.js";
import { createWorkspace, type TestWorkspace } from "./tool-context.js";

/** Alive and not a zombie (a container's init may not reap orphans at once). */
async function isRunning(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat === null) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

/** SIGKILL is delivered asynchronously: allow the killed process a moment to die. */
async function stopsRunning(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (!(await isRunning(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

async function readPid(ws: TestWorkspace, name: string): Promise<number> {
  return Number((await readFile(join(ws.root, name), "utf8")).trim());
}

/** Polls for a file the command writes once it is running. */
async function waitForFile(ws: TestWorkspace, name: string): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (
      await readFile(join(ws.root, name), "utf8").then(
        (t) => t.trim() !== "",
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${name} never appeared`);
}

// Commands start from the spawner's helper when it is up (an App's fork
// per command is costly), else from this process: the same behaviour both ways.
describeBothWays("run_shell", (starter) => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
  });
  afterEach(() => ws.cleanup());

  const shell = createRunShellTool({ killGraceMs: 300, closeGraceMs: 300 });

  it("is started by the process it should be", async () => {
    const out = await shell.run({ command: "echo parent=$PPID" }, ws.ctx);
    expect(out).toContain(`parent=${starter()}`);
  });

  it("returns once the command exits when a daemon it started holds its output open, and lets go of it", async () => {
    const started = Date.now();
    const out = await shell.run(
      {
        // Its own session: out of the group a leftover kill reaches, its output still the pipe.
        command:
          "setsid sh -c 'echo $$ > daemon.pid; sleep 3; echo late; echo wrote > after.txt' & sleep 0.2; echo started",
      },
      ws.ctx,
    );
    const daemon = await readPid(ws, "daemon.pid");
    try {
      expect(out).toContain("started");
      expect(out).toContain("exit code: 0");
      // The close grace (300 ms here), not the daemon's 3 s.
      expect(Date.now() - started).toBeLessThan(2_500);
      // Nothing reads the pipe any more: the daemon's next write ends it.
      for (let i = 0; i < 400 && (await isRunning(daemon)); i++)
        await new Promise((wait) => setTimeout(wait, 20));
      expect(await isRunning(daemon)).toBe(false);
      await expect(readFile(join(ws.root, "after.txt"), "utf8")).rejects.toThrow(/ENOENT/);
    } finally {
      try {
        process.kill(daemon, "SIGKILL");
      } catch {
        // Gone, as it should be.
      }
    }
  });

  it("returns the exit code, stdout and stderr", async () => {
    const out = await shell.run({ command: "echo out; echo err >&2; exit 3" }, ws.ctx);
    expect(out).toBe("exit code: 3\nstdout:\nout\nstderr:\nerr");
  });

  it("runs in the workspace root with bash, inside trackChanges", async () => {
    const out = await shell.run({ command: 'pwd; echo "$BASH_VERSION" | cut -c1' }, ws.ctx);
    expect(out).toMatch(new RegExp(`^exit code: 0\nstdout:\n${ws.root}\n\\d$`));
    expect(ws.tracked.count).toBe(1);
  });

  it("closes stdin so prompts fail instead of hanging", async () => {
    const out = await shell.run({ command: 'read answer; echo "read exited $?"' }, ws.ctx);
    expect(out).toContain("read exited 1");
  });

  it("names a network failure and the setting behind it, and only when the command failed", async () => {
    const failed = await shell.run(
      { command: 'echo "curl: (6) Could not resolve host: registry.npmjs.org" >&2; exit 6' },
      ws.ctx,
    );
    expect(failed).toContain(
      "\nnote: network: registry.npmjs.org cannot be resolved (could not resolve host). This command has no network (`network` in .github/patchwright.yml). This is the job's setting, not something a command can change.",
    );
    const recovered = await shell.run(
      { command: 'echo "WARN GET https://r.example/x error (ECONNRESET). Will retry" >&2; exit 0' },
      ws.ctx,
    );
    expect(recovered).not.toContain("note: network");
  });

  it("says when there is no output", async () => {
    expect(await shell.run({ command: "true" }, ws.ctx)).toBe("exit code: 0\n(no output)");
  });

  it("kills the whole process group on timeout", async () => {
    const out = await shell.run(
      { command: "sleep 100 & echo $! > bg.pid; sleep 100 & echo $! > fg.pid; wait", timeout: 0.5 },
      ws.ctx,
    );
    expect(out).toMatch(/^timed out after 0.5s/);
    expect(out).toContain("exit code: 143 (killed by SIGTERM)");
    expect(await stopsRunning(await readPid(ws, "bg.pid"))).toBe(true);
    expect(await stopsRunning(await readPid(ws, "fg.pid"))).toBe(true);
  });

  it("escalates to SIGKILL when the command ignores SIGTERM", async () => {
    const out = await shell.run(
      {
        command: "trap '' TERM; sleep 100 & echo $! > bg.pid; while :; do sleep 0.05; done",
        timeout: 0.5,
      },
      ws.ctx,
    );
    expect(out).toContain("killed by SIGKILL");
    expect(await stopsRunning(await readPid(ws, "bg.pid"))).toBe(true);
  });

  it("kills the process group when the run is aborted", async () => {
    const running = shell.run({ command: "sleep 100 & echo $! > bg.pid; wait" }, ws.ctx);
    await waitForFile(ws, "bg.pid");
    ws.controller.abort();
    const out = await running;
    expect(out).toMatch(/^aborted/);
    expect(await stopsRunning(await readPid(ws, "bg.pid"))).toBe(true);
  });

  it("refuses to start when the run is already aborted", async () => {
    ws.controller.abort();
    await expect(shell.run({ command: "echo hi" }, ws.ctx)).rejects.toThrow(/cancelled/);
  });

  it("says the command never started when the run was cancelled while its sandbox was being made", async () => {
    const sandbox = ws.ctx.sandbox;
    const ctx = {
      ...ws.ctx,
      sandbox: {
        ...sandbox,
        wrap: async (request: Parameters<typeof sandbox.wrap>[0]) => {
          ws.controller.abort();
          return sandbox.wrap(request);
        },
      },
    };
    const out = await shell.run({ command: "echo ran > ran.txt" }, ctx);
    expect(out).toMatch(/^aborted: the run was cancelled before the command started/);
    await expect(readFile(join(ws.root, "ran.txt"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("stops background processes the command leaves behind", async () => {
    const out = await shell.run({ command: "sleep 100 & echo $! > bg.pid; echo started" }, ws.ctx);
    expect(out).toContain("exit code: 0");
    expect(out).toContain("processes the command left running in the background were stopped");
    expect(out).toContain("started");
    expect(await stopsRunning(await readPid(ws, "bg.pid"))).toBe(true);
  });

  it("caps output while streaming, keeping head and tail", async () => {
    const capped = createRunShellTool({ maxStreamChars: 1000 });
    const out = await capped.run(
      { command: "echo FIRST; head -c 3000000 /dev/zero | tr '\\0' a; echo; echo LAST" },
      ws.ctx,
    );
    expect(out).toContain("FIRST");
    expect(out).toContain("LAST");
    expect(out).toMatch(/\[\.\.\. \d+ characters cut \.\.\.\]/);
    expect(out.length).toBeLessThan(1200);
  });

  it("gives the command only the scrubbed environment", async () => {
    const secrets = {
      GITHUB_TOKEN: "ghs_secretsecretsecretsecret1234",
      ANTHROPIC_API_KEY: "sk-ant-api03-topsecret",
      PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nMIIEsecret\n-----END RSA PRIVATE KEY-----",
      WEBHOOK_SECRET: "webhook-hush-123",
    };
    const previous = process.env.PATCHWRIGHT_PARENT_ONLY;
    process.env.PATCHWRIGHT_PARENT_ONLY = "parent-value-xyz";
    try {
      ws.ctx.env = buildShellEnv({ PATH: process.env.PATH, HOME: "/tmp", ...secrets });
      const out = await runShellTool.run(
        { command: "env; printenv; cat /proc/self/environ | tr '\\0' '\\n'" },
        ws.ctx,
      );
      expect(out).toContain("PATH=");
      expect(out).toContain("GIT_TERMINAL_PROMPT=0");
      for (const value of [...Object.values(secrets), "MIIEsecret", "parent-value-xyz"]) {
        expect(out).not.toContain(value);
      }
      for (const name of [...Object.keys(secrets), "PATCHWRIGHT_PARENT_ONLY"]) {
        expect(out).not.toContain(`${name}=`);
      }
    } finally {
      if (previous === undefined) delete process.env.PATCHWRIGHT_PARENT_ONLY;
      else process.env.PATCHWRIGHT_PARENT_ONLY = previous;
    }
  });

  it("summarizes with the first line of the command", () => {
    expect(runShellTool.summarize({ command: "npm test\necho done" })).toBe("run_shell npm test");
  });
});
