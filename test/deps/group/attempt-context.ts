import type { AttemptContext } from "../../../src/deps/group/attempt.js";
import type { GroupTools } from "../../../src/deps/group/context.js";
import { noSandbox } from "../../helpers/sandbox.js";

/** The tries' environment here: the PATH's programs. */
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const network = { kind: "off" } as const;

/** A group's tools in a test: the given commands, the PATH's programs, no network, no cutoff. */
export function testTools(
  tools: Pick<GroupTools, "install" | "verify" | "manifests" | "lockfilePath"> &
    Partial<GroupTools>,
): GroupTools {
  return {
    before: undefined,
    securityBefore: undefined,
    shellEnv: env,
    npmEnv: env,
    network,
    setupNetwork: network,
    ...tools,
  };
}

/** A try in `dir`, unsandboxed, its steps told to `step`. */
export function testAttempt(
  dir: string,
  tools: GroupTools,
  options: Pick<AttemptContext, "passed" | "locked"> & { step?: (text: string) => void } = {},
): AttemptContext {
  return {
    tools,
    dir,
    before: undefined,
    gitEnv: env,
    sandboxes: { setup: noSandbox(dir), agent: noSandbox(dir) },
    clock: Date,
    signal: new AbortController().signal,
    events: { step: options.step ?? (() => {}) },
    passed: options.passed,
    locked: options.locked,
  };
}
