import type { Model } from "../agent/model.js";
import { createAnthropicModel } from "../agent/models/anthropic.js";
import type { Redactor } from "../agent/redact.js";
import type { GitHubClient } from "../github/octokit.js";
import { createStatusReporter, type StatusReporter } from "../github/status.js";
import type { JobRequest } from "../requests/request.js";

/**
 * The wiring the App and the Action share: how a model is built for a job
 * and how a request gets its tracking comment. Entry points differ only in
 * where the key, the token and the logger come from.
 */

export interface ModelFactorySettings {
  apiKey: string | undefined;
  /** ANTHROPIC_BASE_URL, for proxies and the loopback model in tests. */
  baseURL?: string | undefined;
  /** Told to the user when there is no key: where it should have come from. */
  missingKey: string;
}

/** `(modelId) => Model` talking to the Messages API; throws `missingKey` when there is no key. */
export function anthropicModelFactory(settings: ModelFactorySettings): (modelId: string) => Model {
  return (model) => {
    if (!settings.apiKey) throw new Error(settings.missingKey);
    return createAnthropicModel({
      apiKey: settings.apiKey,
      model,
      ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    });
  };
}

export interface RequestStatusDeps {
  octokit: GitHubClient;
  clock: { now(): number };
  redact: Redactor;
  /** Link to the job's log (an Actions run), shown in the tracking comment. */
  jobUrl?: string | undefined;
  onError?: ((error: unknown, action: string) => void) | undefined;
  /** The job's tracking comment from an earlier attempt, to edit instead of posting another. */
  existingComment?: { id: number; url: string } | undefined;
  /** A hidden line naming the job in its comments (see StatusReporterDeps.marker). */
  marker?: string | undefined;
}

/** The tracking comment and reactions for one request, on its issue or pull request. */
export function createRequestStatus(deps: RequestStatusDeps, request: JobRequest): StatusReporter {
  return createStatusReporter({
    octokit: deps.octokit,
    repo: { owner: request.repo.owner, repo: request.repo.name },
    issueNumber: request.target.number,
    source: request.source,
    clock: deps.clock,
    redact: deps.redact,
    jobUrl: deps.jobUrl,
    onError: deps.onError,
    existingComment: deps.existingComment,
    marker: deps.marker,
  });
}
