import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findShell, runShellProcess } from "../../../src/agent/shell-process.js";
import { buildShellEnv } from "../../../src/agent/tools/shell-env.js";
import { sandboxFor } from "../../helpers/sandbox.js";

/**
 * npm run the way the agent runs it: in the real sandbox, whose HOME is
 * new for every command, with the shell's environment.
 */

let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "pw-shell-npm-"));
  await writeFile(
    join(workspace, "package.json"),
    JSON.stringify({ name: "calc", private: true, scripts: { test: "echo tested" } }),
  );
});
afterAll(() => rm(workspace, { recursive: true, force: true }));

describe("npm in the agent's sandboxed shell", () => {
  it("runs a script without looking for a newer npm", async () => {
    const sandbox = await sandboxFor(workspace);
    const env = buildShellEnv({ PATH: process.env.PATH });
    try {
      const outcome = await runShellProcess(
        await findShell(env.PATH ?? ""),
        'npm test; echo "exit=$?"; ls -a "$HOME/.npm"',
        60,
        { cwd: workspace, env, signal: new AbortController().signal, sandbox },
      );
      expect(outcome.stdout).toContain("tested");
      expect(outcome.stdout).toContain("exit=0");
      // npm ran with this HOME (its log is there) and never checked for an update.
      expect(outcome.stdout).toContain("_logs");
      expect(outcome.stdout).not.toContain("_update-notifier-last-checked");
    } finally {
      await sandbox.close();
    }
  });
});
