import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ActionsIo } from "../../src/action/actions-io.js";
import { main } from "../../src/action/main.js";
import {
  type ActionWorld,
  API_KEY,
  eventPayload,
  prepareRun,
  runnerEnv,
  startWorld,
  TOKEN,
} from "../action/harness.js";
import { callTool, reply } from "../helpers/model-script.js";

/**
 * The Action where no sandbox can start (a container without user
 * namespaces: its bwrap fails as the real one does there). It must refuse
 * to run repository code, naming the fix, unless the workflow opts out with
 * `unsandboxed: true`. Run in-process through main(), as run.ts does, with
 * GitHub, git and the model as loopback fakes.
 */

interface Recorded {
  failed: string[];
  warnings: string[];
  info: string[];
}

/** The runner's side of main(): inputs from INPUT_* variables, everything said recorded. */
function recordingIo(env: Record<string, string>, recorded: Recorded): ActionsIo {
  return {
    getInput: (name) => (env[`INPUT_${name.toUpperCase()}`] ?? "").trim(),
    setOutput() {},
    setSecret() {},
    setFailed: (message) => recorded.failed.push(message),
    info: (message) => recorded.info.push(message),
    warning: (message) => recorded.warnings.push(message),
    appendSummary: async () => {},
    uploadArtifact: async () => undefined,
  };
}

/** A bwrap that fails the way it does where user namespaces are not allowed. */
function refusingBwrap(dir: string): string {
  const bin = join(dir, "no-userns-bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, "bwrap"),
    '#!/bin/sh\n[ "$1" = --help ] && exit 0\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n',
  );
  chmodSync(join(bin, "bwrap"), 0o755);
  return bin;
}

let world: ActionWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** One workflow_dispatch run whose agent calls run_shell once with `command`. */
async function dispatch(options: {
  command: string | ((tmp: string) => string);
  inputs?: Record<string, string>;
  env?: (tmp: string) => Record<string, string>;
}): Promise<{ recorded: Recorded; toolResults: string; world: ActionWorld }> {
  world = await startWorld();
  const tmp = world.tmp.path;
  const command = typeof options.command === "string" ? options.command : options.command(tmp);
  world.model.push(callTool("run_shell", { command }), reply("Looked around."));
  const runDir = prepareRun(world, eventPayload(world, "workflow_dispatch", undefined, "octocat"));
  const env = {
    ...runnerEnv(world, runDir, "workflow_dispatch", {
      anthropic_api_key: API_KEY,
      github_token: TOKEN,
      prompt: "Look at the repository",
      max_turns: "3",
      ...options.inputs,
    }),
    ...options.env?.(tmp),
  };
  const recorded: Recorded = { failed: [], warnings: [], info: [] };
  await main({ env, io: recordingIo(env, recorded), signal: new AbortController().signal });
  const toolResults = JSON.stringify(world.model.requests.slice(1).map((r) => r.body));
  return { recorded, toolResults, world };
}

describe("red team: the Action where no sandbox can start", () => {
  it("refuses to run repository code, naming the fix, and runs none of it", async () => {
    const {
      recorded,
      toolResults,
      world: ran,
    } = await dispatch({
      command: "echo RAN-UNSANDBOXED",
      env: (tmp) => ({ PATH: `${refusingBwrap(tmp)}:${process.env.PATH}` }),
    });
    const failure = recorded.failed.join("\n");
    expect(failure).toContain("only inside a sandbox");
    expect(failure).toContain("No permissions to create new namespace");
    expect(failure).toContain("apt-get install bubblewrap");
    expect(failure).toContain("--security-opt seccomp=unconfined");
    expect(failure).toContain("unsandboxed: true");
    expect(toolResults).not.toContain("RAN-UNSANDBOXED");
    expect(ran.github.pulls).toHaveLength(0);
  }, 60_000);

  it("runs unsandboxed, with a warning, when the workflow sets unsandboxed: true", async () => {
    const { recorded, toolResults } = await dispatch({
      // Outside a sandbox the host's files are visible: the proof it ran unsandboxed.
      command: `test -d ${process.cwd()}/src && echo HOST-FILES-VISIBLE`,
      inputs: { unsandboxed: "true" },
      env: (tmp) => ({ PATH: `${refusingBwrap(tmp)}:${process.env.PATH}` }),
    });
    expect(recorded.failed).toEqual([]);
    expect(recorded.warnings.join("\n")).toContain(
      "running repository code unsandboxed because the input unsandboxed: true is set",
    );
    expect(toolResults).toContain("HOST-FILES-VISIBLE");
  }, 60_000);
});

describe("red team: the Action hides key files its environment names", () => {
  it("keeps GOOGLE_APPLICATION_CREDENTIALS out of run_shell, even in a folder the sandbox shows", async () => {
    const secret = "gcp-service-account-secret-0123456789";
    const { recorded, toolResults } = await dispatch({
      command: (tmp) => `cat ${tmp}/sys/etc/gcp.json 2>&1; cat ${tmp}/sys/etc/visible.txt`,
      // The trusted preset lets the command read outside the workspace: only the sandbox stands in the way.
      inputs: { policy: "trusted" },
      env: (tmp) => {
        // A toolchain on PATH (shown read-only, as /etc is) holding the workflow's credentials.
        const sys = join(tmp, "sys");
        for (const dir of ["bin", "lib", "etc"]) mkdirSync(join(sys, dir), { recursive: true });
        writeFileSync(join(sys, "etc", "gcp.json"), `{"private_key":"${secret}"}\n`);
        writeFileSync(join(sys, "etc", "visible.txt"), "toolchain-file-visible\n");
        return {
          PATH: `${join(sys, "bin")}:${process.env.PATH}`,
          GOOGLE_APPLICATION_CREDENTIALS: join(sys, "etc", "gcp.json"),
        };
      },
    });
    expect(recorded.failed).toEqual([]);
    expect(toolResults).toContain("toolchain-file-visible");
    expect(toolResults).not.toContain(secret);
  }, 60_000);
});
