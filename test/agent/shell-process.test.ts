import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runShellProcess } from "../../src/agent/shell-process.js";
import type { Sandbox, SandboxRequest } from "../../src/sandbox/sandbox.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/**
 * A cancelled run starts no command: a sandbox killed while bubblewrap was
 * still setting it up left its command running (a lockfile step that went
 * on writing into a workspace already cleaned up and parked for the next job).
 */

/** A sandbox that runs the command as it is (or `instead`), after `beforeWrap`; counts its wraps. */
function plainSandbox(beforeWrap: () => void = () => {}, instead?: { file: string }) {
  const wraps: SandboxRequest[] = [];
  const sandbox: Sandbox = {
    kind: "none",
    network: { kind: "off" },
    async wrap(request) {
      wraps.push(request);
      beforeWrap();
      const [file = "/bin/sh", ...args] = request.argv;
      return instead
        ? { file: instead.file, args: [], env: request.env }
        : { file, args, env: request.env };
    },
    close: async () => {},
  };
  return { sandbox, wraps };
}

describe("runShellProcess in a cancelled run", () => {
  it("starts nothing, not even the sandbox, once the run is cancelled", async () => {
    const dir = await makeTempDir();
    const marker = join(dir, "ran");
    const controller = new AbortController();
    controller.abort(new Error("shutting down"));
    const { sandbox, wraps } = plainSandbox();
    const outcome = await runShellProcess("/bin/sh", `touch ${marker}`, 30, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      signal: controller.signal,
      sandbox,
    });
    expect(outcome).toMatchObject({ stoppedBy: "abort", code: null, signal: null, started: false });
    expect(wraps).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it("starts nothing when the run is cancelled while its sandbox is being set up", async () => {
    const dir = await makeTempDir();
    const controller = new AbortController();
    // A program that is not there: started, it would fail to spawn instead of being skipped.
    const { sandbox, wraps } = plainSandbox(() => controller.abort(new Error("shutting down")), {
      file: join(dir, "no-such-program"),
    });
    const outcome = await runShellProcess("/bin/sh", "true", 30, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      signal: controller.signal,
      sandbox,
    });
    expect(wraps).toHaveLength(1);
    expect(outcome).toMatchObject({ stoppedBy: "abort", code: null, signal: null, started: false });
  });
});
