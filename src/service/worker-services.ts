import type { ModelSettings } from "../agent/model/factory.js";
import type { Model } from "../agent/model/model.js";
import type { OperatorCeilings } from "../config/ceilings.js";
import type { KnownSecret } from "../git/push/secret-scan.js";
import type { GitHubAppClients } from "../github/client.js";
import type { JobEventLog } from "../queue/event-log.js";
import type { SetTimer } from "../queue/timer.js";
import type { SubmitResult } from "../queue/types.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import type { ServiceJob } from "./job-kinds/inputs.js";
import type { ServiceLog } from "./service-log.js";

/** What a worker needs to turn job records into runs, in any process. */
export interface WorkerServices {
  github: GitHubAppClients;
  /** The process environment (as parsed at the entry): git's, and the secrets to keep out of everything. */
  env: Record<string, string | undefined>;
  /** The secrets `env` holds, found once when the worker starts: none may leave in a commit, a comment or a page. */
  secrets: readonly KnownSecret[];
  cacheDir: string;
  cacheBytes: number;
  createModel: (modelId: string, settings?: ModelSettings) => Model;
  /** Chosen once per process, when a job first opens a sandbox (a LauncherSource). */
  sandbox: () => Promise<SandboxLauncher>;
  clock: { now(): number };
  botLogin: () => Promise<string>;
  log: ServiceLog;
  /** Queues more jobs (a moved base queues one update per pull request on it). */
  submit?: ((job: ServiceJob) => Promise<SubmitResult>) | undefined;
  setTimer?: SetTimer | undefined;
  /** How often a running job looks at the requests queued behind it (default 10 s). */
  queuePollMs?: number | undefined;
  /** Runs a job gets before the queue gives up on it (default DEFAULT_MAX_ATTEMPTS). */
  maxAttempts?: number | undefined;
  /** A job's page on the App's server, when its pages are on: linked from its comment and pull request. */
  jobPageUrl?: ((jobId: string) => string) | undefined;
  /** Each job's event log (the queue's): what the job pages show. None: nothing is recorded. */
  eventLog?: JobEventLog | undefined;
  /** What no repository's config may exceed (PATCHWRIGHT_MAX_COST_USD and the rest). */
  ceilings?: OperatorCeilings | undefined;
}
