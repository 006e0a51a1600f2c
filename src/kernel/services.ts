import type { KnownSecret } from "../git/push/secret-scan.js";
import type { RetryOptions } from "../git/retry.js";
import type { LauncherSource } from "../sandbox/sandbox.js";
import type { ProjectToolsSource } from "./project-tools.js";

/**
 * What every job kind runs with, built once per entry point (App, worker,
 * Action, CLI) and passed down whole: never copied field by field. The
 * GitHub side (publisher, models) is the thread's (thread/services.ts).
 */
export interface JobServices {
  cacheDir: string;
  /**
   * Every command the job runs from the repository or the agent runs in one
   * of its sandboxes. May be chosen later (the Action probes bubblewrap
   * only when the job first asks): awaited where a sandbox is opened, after
   * the workspace, so no command runs before it.
   */
  sandbox: LauncherSource;
  /** Every secret the process holds, found once at the entry: none may leave in a commit or a page. */
  secrets: readonly KnownSecret[];
  /** The process environment, read once at the entry: git gets what it needs, the agent's shell only an allowlist. */
  envSource: Record<string, string | undefined>;
  clock: { now(): number };
  /** Aborted by a shutdown (or Ctrl+C): the job stops at its next safe point. */
  signal?: AbortSignal | undefined;
  /**
   * How fetches, ls-remote and pushes that failed on the transport (server
   * down, 5xx, reset) are retried; default 4 tries over about 10 s.
   */
  gitRetry?: RetryOptions | undefined;
  /**
   * false where no later job will use this machine's trees (the Action's
   * runner): a job that writes a big new tree makes no spare for the next
   * one (git/workspace/spare.ts). Default true.
   */
  spareTrees?: boolean | undefined;
  /**
   * What a checkout needs to start its own package manager (project-tools.ts),
   * given by the entry (the detector is the dependency job's); none: the
   * commands find their tools on the PATH alone.
   */
  projectTools?: ProjectToolsSource | undefined;
}
