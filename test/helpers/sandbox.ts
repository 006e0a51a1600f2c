import { homedir } from "node:os";
import { join } from "node:path";
import { networkPolicy } from "../../src/sandbox/network.js";
import { type Sandbox, type SandboxLauncher, unsandboxed } from "../../src/sandbox/sandbox.js";
import { chooseSandbox } from "../../src/sandbox/select.js";
import { NO_HOST_TRUST } from "../../src/sandbox/trust/host-trust.js";

let chosen: Promise<SandboxLauncher> | undefined;

/**
 * The machine's real sandbox, chosen the way the App chooses it (bubblewrap,
 * or a launcher that refuses with the fix: tests need bubblewrap, which
 * .ci/run installs). Probed once per test file.
 */
export function realSandbox(): Promise<SandboxLauncher> {
  chosen ??= chooseSandbox({
    mode: "service",
    optOut: false,
    optOutName: "PATCHWRIGHT_UNSANDBOXED=1",
    path: process.env.PATH ?? "",
    home: process.env.HOME || homedir(),
    hidden: [join(import.meta.dirname, "..", "..")],
    // Not this machine's own proxy or CA settings: a test that wants them passes its own.
    env: { PATH: process.env.PATH ?? "" },
    cwd: process.cwd(),
    hostTrust: NO_HOST_TRUST,
  }).then((choice) => choice.launcher);
  return chosen;
}

/**
 * The real sandbox, given the trust a host with this environment and HOME
 * has (its CA variables, proxies, npmrc files), as an entry point reads it.
 */
export async function sandboxTrusting(host: {
  env: Record<string, string | undefined>;
  home: string;
}): Promise<{ launcher: SandboxLauncher; notes: string[] }> {
  const choice = await chooseSandbox({
    mode: "service",
    optOut: false,
    optOutName: "PATCHWRIGHT_UNSANDBOXED=1",
    path: process.env.PATH ?? "",
    home: host.home,
    hidden: [join(import.meta.dirname, "..", "..")],
    env: host.env,
    cwd: process.cwd(),
  });
  return { launcher: choice.launcher, notes: choice.notes };
}

/** A workspace's sandbox from the real launcher, network off unless asked. */
export async function sandboxFor(
  workspace: string,
  options: { readOnly?: string[]; network?: Parameters<typeof networkPolicy>[0] } = {},
): Promise<Sandbox> {
  return (await realSandbox()).open({
    workspace,
    readOnly: options.readOnly ?? [],
    network: networkPolicy(options.network ?? "off"),
  });
}

/** For unit tests of code around the commands, where containment is not the subject. */
export function noSandbox(workspace: string): Sandbox {
  return unsandboxed.open({ workspace, readOnly: [], network: { kind: "off" } });
}
