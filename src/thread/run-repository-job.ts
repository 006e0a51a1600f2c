import type { RepoConfig } from "../config/schema.js";
import type { FetchedMirror } from "../git/workspace/workspace.js";
import { type JobEvents, jobEvents } from "../kernel/events.js";
import { workflowsBlocked } from "../kernel/workflow-files.js";
import type { JobRequest, Person } from "../requests/request.js";
import { executePlan } from "./execute-plan.js";
import { coAuthorOf, jobSettingsFrom } from "./job-settings.js";
import type { ThreadOutcome } from "./plan.js";
import type { ThreadServices } from "./services.js";

/**
 * A job with no issue or pull request behind it: a workflow dispatch or a
 * schedule runs a prompt on the default branch and proposes the result as a
 * new pull request. There is no thread to read or answer, so progress goes
 * to the caller's hooks (the Actions log) instead of a tracking comment.
 */
export interface RepositoryJobRequest {
  trigger: "workflow_dispatch" | "schedule";
  /** The run id: a re-run of the same run is the same request. */
  deliveryId: string;
  repo: JobRequest["repo"];
  /** Who dispatched the run; a schedule has nobody to credit. */
  requester?: Person | undefined;
  /** The prompt: trusted, it comes from the workflow file or a writer's dispatch. */
  instruction: string;
  /** The run's page, linked from the commits and the pull request. */
  runUrl?: string | undefined;
}

export interface RepositoryJobOptions {
  /** Where progress goes: no thread to comment on, so the caller's log. */
  events?: Partial<JobEvents> | undefined;
  /** From `prefetchRepository`, started before the caller loaded the config. */
  fetched?: Promise<FetchedMirror | null> | undefined;
}

const MAX_TITLE_CHARS = 72;

/** The pull request's title: the prompt's first line, cut at a word. */
export function titleFromPrompt(prompt: string): string {
  const line = prompt.trim().split("\n")[0]?.trim() ?? "";
  if (line.length <= MAX_TITLE_CHARS) return line || "Changes requested by a workflow";
  const cut = line.slice(0, MAX_TITLE_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

export function renderRepositoryTask(request: RepositoryJobRequest): string {
  const how = request.trigger === "schedule" ? "on a schedule" : "by a workflow dispatch";
  return [
    `This job was started ${how} in the GitHub repository ${request.repo.owner}/${request.repo.name}.`,
    `You are on a new branch made from \`${request.repo.defaultBranch}\`; your changes will be committed and proposed as a pull request.`,
    "The request:",
    request.instruction.trim(),
  ].join("\n\n");
}

/**
 * Runs the prompt and opens (or updates) a pull request with the result.
 * Failures of the job's own steps come back in the outcome; an exception
 * (GitHub refused the pull request) is the caller's to report.
 */
export async function runRepositoryJob(
  services: ThreadServices,
  request: RepositoryJobRequest,
  config: RepoConfig,
  options: RepositoryJobOptions = {},
): Promise<ThreadOutcome> {
  const title = titleFromPrompt(request.instruction);
  const requester = request.requester;
  const outcome = await executePlan(
    services,
    config,
    {
      input: {
        cloneUrl: request.repo.cloneUrl,
        repoSizeKb: request.repo.sizeKb,
        fetched: options.fetched,
        token: services.gitToken,
        baseBranch: request.repo.defaultBranch,
        defaultBranch: request.repo.defaultBranch,
        branchTitle: services.redact(title),
        task: renderRepositoryTask(request),
        ...jobSettingsFrom(config, services.createModel),
        coAuthor: coAuthorOf(requester),
        requestUrl: request.runUrl,
        push: true,
        ...(services.canPushWorkflows === false ? workflowsBlocked(config) : {}),
      },
      work: { kind: "agent" },
      publish: {
        kind: "pull_request",
        repo: { owner: request.repo.owner, repo: request.repo.name },
        title,
        origin: { requester: requester?.login ?? "github-actions", url: request.runUrl },
      },
    },
    jobEvents(options.events),
  );
  const { report: _report, ...rest } = outcome;
  return rest;
}
