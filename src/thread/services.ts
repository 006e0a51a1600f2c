import type { ModelSettings } from "../agent/model/factory.js";
import type { Model } from "../agent/model/model.js";
import type { Redactor } from "../agent/redact.js";
import type { GitHubClient } from "../github/octokit.js";
import type { JobServices } from "../kernel/services.js";

/**
 * What a job on an issue or pull request thread runs with: the job
 * services, plus GitHub (the client that reads the thread and publishes
 * the result, the token git pushes with) and the model factory. Built once
 * per entry point (the App's worker, the Action).
 */
export interface ThreadServices extends JobServices {
  octokit: GitHubClient;
  /** The token git uses to fetch and push (installation token, Action token). Never given to the agent. */
  gitToken: () => Promise<string | undefined>;
  createModel: (modelId: string, settings?: ModelSettings) => Model;
  botLogin: string;
  /** Everything the job writes (comments, PR bodies, titles) goes through it. */
  redact: Redactor;
  /**
   * false: the token lacks `workflows: write`, so GitHub would refuse a push
   * that touches .github/workflows; the agent is told so before it starts.
   * Unset: not known, nothing is said.
   */
  canPushWorkflows?: boolean | undefined;
  /** This job's page on the App's server, when its pages are on: linked from the pull request. */
  jobPage?: string | undefined;
}
