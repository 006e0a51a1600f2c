import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { makeScratchDir } from "../scratch.js";
import { runInGroup } from "../spawner.js";
import { bubblewrapLauncher } from "./bubblewrap.js";
import { inSystemDirs, type MachineFacts, machineMounts } from "./layout.js";
import { type SandboxLauncher, unsandboxed } from "./sandbox.js";
import { secretFilesInEnv } from "./secret-files.js";
import { type HostTrust, readHostTrust } from "./trust/host-trust.js";

/**
 * Chooses how this process runs repository code. bubblewrap when it can
 * start here; otherwise the CLI (the user's own machine and key) runs
 * commands as they are with one warning, and a service (App, Action)
 * refuses to run them unless its operator opted out explicitly.
 */

export interface SandboxChoice {
  launcher: SandboxLauncher;
  /** One line to show the user or log once (unsandboxed). */
  warning?: string;
  /** What of the host's trust and proxy settings sandboxes do not get, and why (for the log). */
  notes: string[];
}

export interface ChooseSandboxOptions extends Omit<MachineFacts, "nodePath" | "caPaths"> {
  /**
   * The process's environment: the key files it names are hidden, and its
   * CA and proxy settings (and npm's, yarn's, git's, pip's config files
   * under `home`) are given to sandboxes without credentials.
   */
  env: Record<string, string | undefined>;
  /** Where relative paths in `env` are resolved from. */
  cwd: string;
  /** The host's trust when already read (tests give their own); default: read from `env` and `home`. */
  hostTrust?: HostTrust | undefined;
  /** "cli": fall back with a warning; "service": refuse unless `optOut`. */
  mode: "cli" | "service";
  optOut: boolean;
  /** Where the opt-out is set, named in the refusal (an env var, an Action input). */
  optOutName: string;
  nodePath?: string;
}

/** A service's jobs fail with this when no sandbox can start; the message names the fix. */
export class SandboxUnavailableError extends Error {
  constructor(reason: string, optOutName: string) {
    super(
      `patchwright runs repository code only inside a sandbox, and none could start here: ${reason}. ` +
        "Install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap) and allow unprivileged user namespaces " +
        "(Docker: --security-opt seccomp=unconfined --security-opt systempaths=unconfined, plus apparmor=unconfined on AppArmor hosts; " +
        "Ubuntu 24.04: sysctl kernel.apparmor_restrict_unprivileged_userns=0), " +
        `or set ${optOutName} to run it without isolation.`,
    );
    this.name = "SandboxUnavailableError";
  }
}

export async function chooseSandbox(options: ChooseSandboxOptions): Promise<SandboxChoice> {
  const nodePath = options.nodePath ?? process.execPath;
  const trust =
    options.hostTrust ??
    (await readHostTrust({
      env: options.env,
      home: options.home,
      nodePath,
      alreadyShown: inSystemDirs,
    }));
  const hidden = [
    ...options.hidden,
    ...secretFilesInEnv(options.env, { cwd: options.cwd, home: options.home }),
  ];
  const found = await probeBubblewrap({ ...options, hidden, nodePath }, trust);
  const notes = trust.notes;
  if (found.ok) return { launcher: found.launcher, notes };
  if (options.mode === "cli") {
    return {
      launcher: unsandboxed,
      warning: `patchwright: warning: no sandbox (${found.reason}); commands run unsandboxed, as you`,
      notes: [],
    };
  }
  if (options.optOut) {
    return {
      launcher: unsandboxed,
      warning: `no sandbox (${found.reason}); running repository code unsandboxed because ${options.optOutName} is set`,
      notes: [],
    };
  }
  const error = new SandboxUnavailableError(found.reason, options.optOutName);
  return {
    launcher: {
      kind: "none",
      open() {
        throw error;
      },
    },
    warning: error.message,
    notes: [],
  };
}

type Probe = { ok: true; launcher: SandboxLauncher } | { ok: false; reason: string };

/** Starts one real sandbox, as jobs will, and runs `true` in it. */
async function probeBubblewrap(
  options: Omit<MachineFacts, "caPaths"> & { nodePath: string },
  trust: HostTrust,
): Promise<Probe> {
  const bwrap = findOnPath("bwrap", options.path);
  if (!bwrap) return { ok: false, reason: "bubblewrap (bwrap) is not installed" };
  const { nodePath } = options;
  const machine = machineMounts({ ...options, caPaths: trust.caPaths });
  const help = await run(bwrap, ["--help"], {});
  const base = { bwrap, machine, hidden: options.hidden, nodePath, trust };
  const launcher = bubblewrapLauncher({
    ...base,
    disableUserns: help.output.includes("--disable-userns"),
  });
  const scratch = await makeScratchDir("probe");
  try {
    const sandbox = launcher.open({ workspace: scratch, readOnly: [], network: { kind: "off" } });
    const command = await sandbox.wrap({
      argv: ["/bin/sh", "-c", "exit 0"],
      cwd: scratch,
      env: { PATH: "/usr/bin:/bin" },
    });
    const outcome = await run(command.file, command.args, command.env);
    await sandbox.close();
    if (outcome.code === 0) return { ok: true, launcher };
    const said = outcome.output
      .trim()
      .split("\n")
      .at(-1)
      ?.replace(/^bwrap: /, "");
    return { ok: false, reason: `bubblewrap cannot start here: ${said || `exit ${outcome.code}`}` };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function findOnPath(name: string, path: string): string | null {
  const dirs = path ? path.split(delimiter) : ["/usr/bin", "/bin"];
  for (const dir of dirs) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

/**
 * Runs a probe's program and gives its output, both streams; through the
 * spawner's helper where it is up (spawner.ts: a fork of a large process
 * costs that process), and a program that cannot start gives its error.
 */
async function run(
  file: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  try {
    const { code, stdout, stderr } = await runInGroup(file, args, { cwd: "/", env }).done;
    return { code, output: `${stdout}${stderr}` };
  } catch (error) {
    return { code: null, output: error instanceof Error ? error.message : String(error) };
  }
}
