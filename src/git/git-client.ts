import { type GroupRunResult, runInGroup } from "../spawner.js";
import { authConfig, currentToken, type GitToken } from "./credentials.js";

export type GitEnv = Record<string, string | undefined>;

export interface GitClientOptions {
  /** The caller's environment (PATH, HOME, GIT_CONFIG_GLOBAL ...). Trusted. */
  env: GitEnv;
  signal?: AbortSignal;
  /** Sends the token to this remote only, for this one client's commands (asked for anew by each). */
  auth?: { url: string; token: GitToken };
  /** Config for this client's commands only, overriding the repository's files. */
  config?: Array<[string, string]>;
  /** Extra variables for this client only (identity, GIT_TERMINAL_PROMPT ...). */
  extraEnv?: Record<string, string>;
  /** Bytes written to the stdin of every command run by this client. */
  input?: Buffer | string;
}

/** A failed git command, with both streams: hooks print to either. */
export class GitCommandError extends Error {
  constructor(
    readonly exitCode: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    const said = stderr.trim() || stdout.trim() || `git exited with code ${exitCode}`;
    super(UNTRUSTED_CERTIFICATE.test(said) ? `${said}\n${CA_HINT}` : said);
    this.name = "GitCommandError";
  }

  /** stdout and stderr together, as a user would have seen them. */
  get output(): string {
    return [this.stdout.trim(), this.stderr.trim()].filter(Boolean).join("\n");
  }
}

// What git (curl) says when it cannot verify a server's certificate: behind
// a proxy that inspects HTTPS, the company's CA is missing from git's.
const UNTRUSTED_CERTIFICATE =
  /server certificate verification failed|SSL certificate problem|unable to get local issuer certificate|self[- ]signed certificate/i;
const CA_HINT =
  "patchwright's git reads no git config file (an http.sslCAInfo there is not used): " +
  "name the CA bundle your network needs in GIT_SSL_CAINFO, or add the CA to the system's store";

// Variables that would point git at another repository or index than the one
// we name, or open an interactive program; inherited from a parent git
// process (a hook running our tests, say) they would silently misdirect us.
const DROPPED =
  /^(git_dir|git_work_tree|git_index_file|git_object_directory|git_alternate_object_directories|git_common_dir|git_namespace|git_prefix|git_config_parameters|git_config_count|git_config_key_\d+|git_config_value_\d+|git_editor|git_sequence_editor|git_pager|editor|visual|pager|prefix)$/i;

/**
 * Our own git never reads a global or system config: a workspace's code (or,
 * unsandboxed, the agent) could have written one, and with it a proxy, a
 * credential helper or a URL rewrite that would see the token. What the
 * operator needs (a CA bundle, a proxy) reaches git through its environment
 * variables instead (GIT_SSL_CAINFO, HTTPS_PROXY).
 */
const OWN_GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };

/**
 * And it never runs a program the repository or a workspace named: hooks
 * inherit git's environment (where the token lives) and could have been
 * planted in the shared mirror; fsmonitor is a command git runs on status;
 * a credential helper would be handed the token.
 */
const NEVER_RUN: Array<[string, string]> = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["credential.helper", ""],
];

/**
 * Nor git's automatic housekeeping after a commit, fetch or merge: a
 * `git maintenance run --auto` process on the way through every one of a
 * job's commits. The mirror's is run once a job is done (mirror.ts
 * maintainMirror, an explicit command this setting leaves alone); a user's
 * own checkout gets its housekeeping from their next git command.
 */
const NO_AUTO_MAINTENANCE: Array<[string, string]> = [["maintenance.auto", "false"]];

/** A client's options with the token each command sends resolved. */
export type GitEnvOptions = Omit<GitClientOptions, "auth"> & {
  auth?: { url: string; token: string | undefined } | undefined;
};

/**
 * Nor does it wait forever on a server that took the request and stopped
 * answering (git's default: no limit, so a fetch or push hangs and the job
 * with it). Two minutes without a byte fails the command, and the retries
 * and the job's own report take it from there (retry.ts: "Operation too
 * slow" is transient). GitHub keeps slow server work talking (progress
 * packets), so only a stalled connection meets this. Git's own
 * GIT_HTTP_LOW_SPEED_LIMIT / GIT_HTTP_LOW_SPEED_TIME still override it.
 */
const NO_ENDLESS_WAIT: Array<[string, string]> = [
  ["http.lowSpeedLimit", "1"],
  ["http.lowSpeedTime", "120"],
];

/** Builds the exact environment a git child process gets. */
export function buildGitEnv(options: GitEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) {
    if (value !== undefined && !DROPPED.test(key)) env[key] = value;
  }
  env.GIT_TERMINAL_PROMPT = "0";
  Object.assign(env, OWN_GIT_ENV);
  const config: Array<[string, string]> = [
    ...NEVER_RUN,
    ...NO_AUTO_MAINTENANCE,
    ...NO_ENDLESS_WAIT,
    ...(options.config ?? []),
  ];
  if (options.auth?.token) config.push(...authConfig(options.auth.url, options.auth.token));
  if (config.length > 0) {
    // Config through the environment rather than `-c`: argv is readable by
    // every user on the machine, a process's environment only by its owner.
    env.GIT_CONFIG_COUNT = String(config.length);
    config.forEach(([key, value], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = key;
      env[`GIT_CONFIG_VALUE_${i}`] = value;
    });
  }
  return { ...env, ...options.extraEnv };
}

/** One repository's git: each command through runGit (see there). */
export interface Git {
  /** A command's stdout; a GitCommandError when it exits non-zero. */
  raw(args: string[]): Promise<string>;
  /** `git cat-file <args>`, as bytes. */
  binaryCatFile(args: string[]): Promise<Buffer>;
}

export function createGit(baseDir: string, options: GitClientOptions): Git {
  return {
    raw: (args) => runGit(baseDir, args, options),
    binaryCatFile: (args) => runGitBuffer(baseDir, ["cat-file", ...args], options),
  };
}

/**
 * Runs one git command with the environment buildGitEnv makes, and returns
 * its stdout. It starts through the spawner's helper (spawner.ts): this
 * process is never forked for git. The arguments are the caller's own: a
 * name or URL that came from outside (a branch, a clone URL) goes after
 * `--`, or is checked before (branch.ts), so git never reads it as an option.
 */
export async function runGit(
  baseDir: string,
  args: string[],
  options: GitClientOptions,
): Promise<string> {
  return (await runGitBuffer(baseDir, args, options)).toString("utf8");
}

/** runGit for output that may be binary (blob contents). */
export async function runGitBuffer(
  baseDir: string,
  args: string[],
  options: GitClientOptions,
): Promise<Buffer> {
  const { code, stdout, stderr } = await runGitCommand(baseDir, args, options);
  if (code === 0) return stdout;
  throw new GitCommandError(code ?? 1, stdout.toString("utf8"), stderr.toString("utf8"));
}

/**
 * One git command and what it ended with, whatever its exit code (null: a
 * signal ended it); rejects only when git could not start or the caller's
 * signal cancelled it. runGitBuffer's way, and the agent tools' (for git
 * grep, exit code 1 is an answer, "no match").
 */
export async function runGitCommand(
  baseDir: string,
  args: string[],
  options: GitClientOptions,
): Promise<GroupRunResult> {
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);
  const auth = options.auth && {
    url: options.auth.url,
    token: await currentToken(options.auth.token),
  };
  if (signal?.aborted) throw abortError(signal);
  return new Promise((resolve, reject) => {
    // Its own process group, so an abort reaches the programs git started
    // too (gc runs repack and pack-objects, fetch runs index-pack): killing
    // git alone left them writing into the folder the caller removes next.
    const run = runInGroup("git", args, {
      cwd: baseDir,
      env: buildGitEnv({ ...options, auth }),
      input: options.input,
    });
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      done();
    };
    // Ends git and its helpers, and rejects once they have exited (their
    // pipes closed): nothing the caller cleans up next (a worktree, a
    // temporary folder) is still being written to.
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      run.killGroup("SIGTERM");
      setTimeout(() => run.killGroup("SIGKILL"), 2_000).unref();
      // A program git started that left the group and kept a pipe open must
      // not hold the caller forever.
      setTimeout(() => settle(() => reject(abortError(signal as AbortSignal))), 5_000).unref();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    run.done.then(
      (result) =>
        settle(() => (aborted ? reject(abortError(signal as AbortSignal)) : resolve(result))),
      (error: Error) => settle(() => reject(error)),
    );
  });
}

/** runGit bound to one directory and one set of options; stdin per call. */
export type GitRunner = (args: string[], input?: Buffer | string) => Promise<string>;

export function gitRunner(baseDir: string, options: GitClientOptions): GitRunner {
  return (args, input) =>
    runGit(baseDir, args, input === undefined ? options : { ...options, input });
}

/** The AbortError a cancelled run's git rejects with, naming the run's reason. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return new DOMException(
    reason instanceof Error ? `aborted: ${reason.message}` : "aborted",
    "AbortError",
  );
}

/** Runs a command and reports only whether it succeeded (for probes like `rev-parse --verify`). */
export async function gitSucceeds(git: Git, args: string[]): Promise<boolean> {
  try {
    await git.raw(args);
    return true;
  } catch (error) {
    if (error instanceof GitCommandError) return false;
    throw error;
  }
}
