import { describe, expect, it } from "vitest";
import { runCommand } from "../../src/kernel/run-command.js";
import { sandboxFor } from "../helpers/sandbox.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp" };

describe("runCommand", () => {
  it("reports a passing command with the end of its output", async () => {
    const cwd = await makeTempDir();
    let now = 1000;
    const result = await runCommand({
      command: "echo start; echo all 3 tests passed",
      cwd,
      env,
      sandbox: await sandboxFor(cwd),
      signal: new AbortController().signal,
      clock: { now: () => (now += 250) },
    });
    expect(result).toMatchObject({
      command: "echo start; echo all 3 tests passed",
      passed: true,
      exit: "0",
      timedOut: false,
      durationMs: 250,
    });
    expect(result.outputTail).toBe("start\nall 3 tests passed");
  });

  it("reports a failing command, keeps stderr and cuts long output to its tail", async () => {
    const cwd = await makeTempDir();
    const result = await runCommand({
      command: "seq 1 5000; echo 'FAIL: 1 failed' >&2; exit 3",
      cwd,
      env,
      sandbox: await sandboxFor(cwd),
      signal: new AbortController().signal,
      clock: Date,
      tailChars: 200,
    });
    expect(result.passed).toBe(false);
    expect(result.exit).toBe("3");
    expect(result.outputTail.length).toBeLessThanOrEqual(200);
    expect(result.outputTail).toContain("FAIL: 1 failed");
  });

  it("runs in the given directory with only the given environment", async () => {
    const cwd = await makeTempDir();
    const result = await runCommand({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template.
      command: 'pwd; echo "token=${GITHUB_TOKEN:-none}"',
      cwd,
      env,
      sandbox: await sandboxFor(cwd),
      signal: new AbortController().signal,
      clock: Date,
    });
    expect(result.outputTail).toBe(`${cwd}\ntoken=none`);
  });
});
