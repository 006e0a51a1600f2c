import { type ConfigError, loadRepoConfig } from "../config/load.js";
import { defaultConfig, type RepoConfig } from "../config/schema.js";
import type { GitHubClient } from "../github/octokit.js";
import { canStartJob, getPermission } from "../github/permissions.js";
import type { StatusReporter } from "../github/status.js";
import type { JobRequest } from "../requests/request.js";
import {
  renderClosedAnswer,
  renderConfigErrorAnswer,
  renderUnauthorizedAnswer,
} from "./answers.js";
import { closedOrLocked, shouldStart } from "./start-rules.js";

export type Admission =
  | { admitted: true; config: RepoConfig }
  | {
      admitted: false;
      reason: "not_for_us" | "config_error" | "closed" | "locked" | "unauthorized";
      /** For `config_error`: what is wrong with the file (already answered on the thread). */
      configError?: ConfigError | undefined;
    };

export interface AdmitDeps {
  octokit: GitHubClient;
  botLogin: string;
  /** Where the config file is on the default branch; default `.github/patchwright.yml`. */
  configPath?: string | undefined;
  /** Settings the entry point overrides (the Action's inputs), applied to the file's config. */
  adjustConfig?: ((config: RepoConfig) => RepoConfig) | undefined;
}

/**
 * Decides whether a request starts a job, and answers when it does not but
 * someone asked: config from the default branch (never a PR head), the
 * phrase or label, bots, closed or locked threads, then the sender's
 * permission through the API. A request that passes gets its 👀.
 */
export async function admitRequest(
  deps: AdmitDeps,
  request: JobRequest,
  status: StatusReporter,
): Promise<Admission> {
  const loaded = await loadRepoConfig(deps.octokit, {
    owner: request.repo.owner,
    repo: request.repo.name,
    ref: request.repo.defaultBranch,
    ...(deps.configPath ? { path: deps.configPath } : {}),
  });
  const adjust = deps.adjustConfig ?? ((config: RepoConfig) => config);
  // A broken file has no trigger phrase to go by: judge by the default one,
  // so only someone who was asking the bot hears about the broken file.
  const config = adjust(loaded.ok ? loaded.config : defaultConfig());
  const decision = shouldStart(request, {
    triggerPhrase: config.triggerPhrase,
    label: config.label,
    allowedBots: config.allowedBots,
    botLogin: deps.botLogin,
  });
  if (!decision.start) return { admitted: false, reason: "not_for_us" };
  if (!loaded.ok) {
    await status.reply(renderConfigErrorAnswer(loaded.error.toMarkdown()));
    return { admitted: false, reason: "config_error", configError: loaded.error };
  }

  const state = closedOrLocked(request);
  if (state) {
    await status.reply(renderClosedAnswer(request.target.kind, state));
    return { admitted: false, reason: state };
  }

  const level = await getPermission(deps.octokit, {
    owner: request.repo.owner,
    repo: request.repo.name,
    username: request.requester.login,
  });
  if (!canStartJob(level)) {
    if (config.answerUnauthorized)
      await status.reply(renderUnauthorizedAnswer(request.requester.login));
    return { admitted: false, reason: "unauthorized" };
  }

  await status.acknowledge();
  return { admitted: true, config };
}
