import type { Model } from "../agent/model/model.js";
import { loadRepoConfig } from "../config/load.js";
import { renderDepsJobSummary } from "../deps/publish/job-summary.js";
import { runDepsJob } from "../deps/run-deps-job.js";
import type { GitToken } from "../git/credentials.js";
import type { KnownSecret } from "../git/push/secret-scan.js";
import { codeBlock, plural } from "../github/markdown.js";
import type { GitHubClient } from "../github/octokit.js";
import { type JobEvents, jobEvents } from "../kernel/events.js";
import { repositorySchema } from "../requests/payload.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import { type ActionInputs, applyInputs } from "./inputs.js";
import { createJobLog } from "./job-log.js";
import { type ActionResult, failed } from "./result.js";

export interface DepsModeDeps {
  octokit: GitHubClient;
  /** The token git fetches and pushes with, or where to get the current one (an App's, renewed as it nears its hour). */
  token: GitToken;
  clock: { now(): number };
  envSource: Record<string, string | undefined>;
  /** What must never leave in a commit (the runner's secrets, the inputs', the token). */
  secrets: readonly KnownSecret[];
  createModel: (modelId: string) => Model;
  cacheDir: string;
  sandbox: SandboxLauncher;
  signal?: AbortSignal | undefined;
  info: (message: string) => void;
}

/**
 * `mode: deps`: the dependency-bump job on the default branch, one pull
 * request per group, instead of a prompt. The repository's `deps:` section
 * (with the Action's inputs laid over the config) says what to bump.
 */
export async function runDepsMode(
  deps: DepsModeDeps,
  payload: unknown,
  inputs: ActionInputs,
): Promise<ActionResult> {
  const parsed = repositorySchema.safeParse(
    (payload as { repository?: unknown } | null)?.repository,
  );
  if (!parsed.success)
    return failed(
      "mode: deps needs the event's repository (owner, name, clone_url, default_branch)",
    );
  const repo = parsed.data;
  const loaded = await loadRepoConfig(deps.octokit, {
    owner: repo.owner.login,
    repo: repo.name,
    ref: repo.default_branch,
    ...(inputs.configPath ? { path: inputs.configPath } : {}),
  });
  if (!loaded.ok)
    return failed(`the config file on ${repo.default_branch} is invalid: ${loaded.error.message}`);

  const result = await runDepsJob(
    {
      cacheDir: deps.cacheDir,
      sandbox: deps.sandbox,
      envSource: deps.envSource,
      secrets: deps.secrets,
      clock: deps.clock,
      createModel: deps.createModel,
      octokit: deps.octokit,
      signal: deps.signal,
      // A runner runs one job: no spare tree for a next one.
      spareTrees: false,
    },
    {
      owner: repo.owner.login,
      repo: repo.name,
      cloneUrl: repo.clone_url,
      token: deps.token,
      defaultBranch: repo.default_branch,
      config: applyInputs(loaded.config, inputs),
    },
    depsModeEvents(deps.info),
  );
  const summary = renderDepsJobSummary(result);
  deps.info(summary);
  if (result.status !== "done") return failed(result.message ?? "the dependency run failed");
  const pulls = result.groups.flatMap((g) => (g.pullRequest ? [g.pullRequest] : []));
  const broken = result.groups.some((g) => g.error !== undefined);
  const first = pulls[0];
  return {
    report: {
      conclusion: broken ? "failure" : pulls.length > 0 ? "success" : "no_changes",
      headline:
        pulls.length > 0
          ? `${plural(pulls.length, "dependency pull request")} opened or updated`
          : (summary.split("\n")[0] ?? "No updates to propose."),
      ...(first ? { pullRequest: { number: first.number, url: first.url } } : {}),
      // Plain text, in Markdown's step summary.
      details: codeBlock(summary, "text"),
    },
    ...(broken ? { failure: "a dependency group could not be bumped; see the summary" } : {}),
  };
}

/**
 * The run's workflow log: each step, and the agent's work on a broken group
 * (its words, tool calls, the model's retries), as a prompt's job logs them.
 * `info` redacts.
 */
export function depsModeEvents(info: (message: string) => void): JobEvents {
  const log = createJobLog({ info, redact: (text) => text });
  return jobEvents({
    step: (step, note) => log.onStep(step, note),
    agent: (event) => log.onEvent(event),
  });
}
