import type { NetworkPolicy } from "./network.js";

/**
 * The boundary every process that runs repository or agent code goes
 * through: `run_shell`, setup and verify commands, the dependency job's
 * install and test steps. A sandbox turns a command into the command that
 * runs it contained; callers spawn the result as they would the original.
 */

export interface SandboxRequest {
  /** The program and its arguments, e.g. [bash, "-c", "npm test"]. */
  argv: string[];
  cwd: string;
  /** The command's environment: already secret-free (buildShellEnv). */
  env: Record<string, string>;
  /**
   * Host folders of the caller's own (a scratch folder it reads the
   * command's logs from) shown writable at the same path.
   */
  writable?: readonly string[] | undefined;
}

export interface SandboxCommand {
  file: string;
  args: string[];
  /** For the spawned process itself: the launcher never holds more than the command gets. */
  env: Record<string, string>;
}

export interface Sandbox {
  readonly kind: SandboxKind;
  readonly network: NetworkPolicy;
  wrap(request: SandboxRequest): Promise<SandboxCommand>;
  /** Stops what the sandbox started beside its commands (the network proxy). */
  close(): Promise<void>;
}

export type SandboxKind = "bubblewrap" | "none";

/** What one sandbox may see and reach. */
export interface SandboxProfile {
  /** Writable, at the same path inside. */
  workspace: string;
  /** Shown read-only on top of the workspace: its git metadata, which the job's own git trusts. */
  readOnly: string[];
  network: NetworkPolicy;
  /** Folders of the job's own outside the workspace (its tools), writable at the same path. */
  shared?: readonly string[] | undefined;
  /**
   * A folder of the job's own on the host that is HOME inside, kept across
   * its commands; default an empty one in each command's own /tmp, which is
   * memory: installs keep their caches and stores there (a pnpm store of a
   * large workspace is gigabytes).
   */
  home?: string | undefined;
}

/** Opens sandboxes on this machine; chosen once per process (see select.ts). */
export interface SandboxLauncher {
  readonly kind: SandboxKind;
  open(profile: SandboxProfile): Sandbox;
}

/**
 * A launcher, or how to choose one when a job first opens a sandbox (the
 * Action probes bubblewrap only then, off the way to its first model
 * request); the function gives the same launcher each time.
 */
export type LauncherSource = SandboxLauncher | (() => Promise<SandboxLauncher>);

export async function launcherFrom(source: LauncherSource): Promise<SandboxLauncher> {
  return typeof source === "function" ? source() : source;
}

/** Runs commands as they are: the CLI's fallback, and an operator's explicit opt-out. */
export const unsandboxed: SandboxLauncher = {
  kind: "none",
  open(profile) {
    return {
      kind: "none",
      network: profile.network,
      wrap: async ({ argv, env }) => ({ file: argv[0] ?? "", args: argv.slice(1), env }),
      close: async () => {},
    };
  },
};
