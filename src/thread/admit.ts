import { applyCeilings, type OperatorCeilings } from "../config/ceilings.js";
import { CONFIG_FILE } from "../config/defaults.js";
import { type ConfigError, type ConfigResult, loadRepoConfig } from "../config/load.js";
import { defaultConfig, type RepoConfig } from "../config/schema.js";
import { errorMessage } from "../error-message.js";
import { type Sleep, withRetries } from "../git/retry.js";
import { isTransientApiError } from "../github/api-errors.js";
import { inlineCode } from "../github/markdown.js";
import type { GitHubClient } from "../github/octokit.js";
import { canStartJob, getPermission } from "../github/permissions.js";
import type { StatusReporter } from "../github/status.js";
import { whatFailed } from "../kernel/transient-failure.js";
import type { JobRequest } from "../requests/request.js";
import {
  renderClosedAnswer,
  renderConfigErrorAnswer,
  renderUnauthorizedAnswer,
} from "./kinds/answers.js";
import { closedOrLocked, isUpkeepEvent, shouldStart } from "./start-rules.js";

export type Admission =
  | { admitted: true; config: RepoConfig }
  | {
      admitted: false;
      reason: "not_for_us" | "config_error" | "closed" | "locked" | "unauthorized" | "check_failed";
      /** For `config_error`: what is wrong with the file (already answered on the thread). */
      configError?: ConfigError | undefined;
      /**
       * For `check_failed`: the API failure that outlasted the retries (the
       * requester was told to ask again, unless `retryLater` held the answer back).
       */
      checkError?: string | undefined;
      /** For `check_failed`: who did not answer and when, in words ("GitHub did not answer (500) when I checked…"). */
      checkFailure?: string | undefined;
    };

export interface AdmitServices {
  octokit: GitHubClient;
  botLogin: string;
  /** Where the config file is on the default branch; default `.github/patchwright.yml`. */
  configPath?: string | undefined;
  /** Settings the entry point overrides (the Action's inputs), applied to the file's config. */
  adjustConfig?: ((config: RepoConfig) => RepoConfig) | undefined;
  /** The operator's ceilings, applied last: neither the file nor an override exceeds them. */
  ceilings?: OperatorCeilings | undefined;
  /**
   * The waits before asking GitHub again when the config read or the
   * permission check failed transiently (5xx, network, rate limit);
   * default 1 s then 4 s.
   */
  retryDelaysMs?: readonly number[] | undefined;
  sleep?: Sleep | undefined;
  /**
   * The caller runs the request again later when a check keeps failing (a
   * queue with attempts left): the requester is not answered yet, and the
   * admission's `check_failed` tells the caller to hand the job back. Unset
   * (the Action, a queue's last attempt): the requester is answered now.
   */
  retryLater?: boolean | undefined;
}

const RETRY_DELAYS_MS = [1_000, 4_000];

type CheckName = "config" | "permission";

/** What admission was asking GitHub when it kept failing, in words. */
function failedCheck(
  check: CheckName,
  error: unknown,
  request: JobRequest,
  configPath: string | undefined,
): string {
  const who = whatFailed(error).replace(/^A /, "a ");
  const file = configPath ? inlineCode(configPath) : CONFIG_FILE;
  const when =
    check === "permission"
      ? `when I checked whether @${request.requester.login} may ask me for changes here`
      : `when I read ${file} from the default branch`;
  return `${who} ${when}`;
}

/** The answer (with 😕) to a request whose checks GitHub kept failing: what failed, and to ask again. */
function renderCheckFailedAnswer(failure: string): string {
  return `😕 I couldn't start on this request: ${failure}, so nothing was started. Please ask again in a few minutes.`;
}

/**
 * Decides whether a request starts a job, and answers when it does not but
 * someone asked: config from the default branch (never a PR head), the
 * phrase or label, bots, closed or locked threads, then the sender's
 * permission through the API. A request that passes gets its 👀 (not
 * waited for: the status reporter's settled() has it). When
 * GitHub keeps failing the config read or the permission check (5xx,
 * network, rate limit; retried first), the reason is `check_failed`, never a
 * silent drop: the requester is told what failed and to ask again (with
 * 😕), or, with `retryLater`, the caller's queue tries again first.
 */
export async function admitRequest(
  deps: AdmitServices,
  request: JobRequest,
  status: StatusReporter,
): Promise<Admission> {
  const ask = <T>(call: () => Promise<T>) =>
    withRetries(call, isTransientApiError, {
      delaysMs: deps.retryDelaysMs ?? RETRY_DELAYS_MS,
      sleep: deps.sleep,
    });
  const adjust = adjusterOf(deps);
  const checkFailed = async (check: CheckName, error: unknown): Promise<Admission> => {
    const failure = failedCheck(check, error, request, deps.configPath);
    // The reply and 😕 on the trigger: the requester's last word on this request.
    if (!deps.retryLater) await status.finish(renderCheckFailedAnswer(failure), "failure");
    return {
      admitted: false,
      reason: "check_failed",
      checkError: errorMessage(error),
      checkFailure: failure,
    };
  };

  const permission = () =>
    ask(() =>
      getPermission(deps.octokit, {
        owner: request.repo.owner,
        repo: request.repo.name,
        username: request.requester.login,
      }),
    ).catch(unlessTransient);
  // The requester's permission is read beside the config when the request
  // is for the bot by the default rules (the config may change the phrase:
  // then, rarely, the answer goes unused), so that an ordinary comment costs
  // no extra call and a request one round trip less.
  const earlyPermission = askedByDefault(deps, request) ? permission() : undefined;
  // Awaited below, or never when the request is not for the bot after all.
  earlyPermission?.catch(() => {});
  const loaded = await ask(() =>
    loadRepoConfig(deps.octokit, {
      owner: request.repo.owner,
      repo: request.repo.name,
      ref: request.repo.defaultBranch,
      ...(deps.configPath ? { path: deps.configPath } : {}),
    }),
  ).catch(unlessTransient);
  // A broken or unreadable file has no trigger phrase to go by: judge by the
  // default one, so only someone who was asking the bot hears about it.
  const config = adjust(isConfig(loaded) && loaded.ok ? loaded.config : defaultConfig());
  const decision = shouldStart(request, {
    triggerPhrase: config.triggerPhrase,
    label: config.label,
    allowedBots: config.allowedBots,
    botLogin: deps.botLogin,
  });
  if (!decision.start) return { admitted: false, reason: "not_for_us" };
  if (!isConfig(loaded)) return checkFailed("config", loaded.failed);
  if (!loaded.ok) {
    await status.reply(renderConfigErrorAnswer(loaded.error.toMarkdown()));
    return { admitted: false, reason: "config_error", configError: loaded.error };
  }

  // No one asked: nothing to check a permission of, no comment to react to.
  if (isUpkeepEvent(request)) return { admitted: true, config };

  const state = closedOrLocked(request);
  if (state) {
    await status.reply(renderClosedAnswer(request.target.kind, state));
    return { admitted: false, reason: state };
  }

  const level = await (earlyPermission ?? permission());
  if (typeof level !== "string") return checkFailed("permission", level.failed);
  if (!canStartJob(level)) {
    if (config.answerUnauthorized)
      await status.reply(renderUnauthorizedAnswer(request.requester.login));
    return { admitted: false, reason: "unauthorized" };
  }

  // Not waited for: the 👀 goes out beside what the job does next (its
  // tracking comment, its thread's reads); the caller's settled() has it.
  void status.acknowledge();
  return { admitted: true, config };
}

function adjusterOf(deps: Pick<AdmitServices, "adjustConfig" | "ceilings">) {
  return (config: RepoConfig) => {
    const adjusted = deps.adjustConfig ? deps.adjustConfig(config) : config;
    return deps.ceilings ? applyCeilings(adjusted, deps.ceilings) : adjusted;
  };
}

/**
 * Whether someone asks the bot for a job by the default rules (phrase,
 * label, bots), on an open thread: what a caller may read ahead for before
 * the config is in. The config may change the phrase; then, rarely, what
 * was read goes unused.
 */
export function askedByDefault(
  deps: Pick<AdmitServices, "adjustConfig" | "ceilings" | "botLogin">,
  request: JobRequest,
): boolean {
  const defaults = adjusterOf(deps)(defaultConfig());
  return (
    !isUpkeepEvent(request) &&
    !closedOrLocked(request) &&
    shouldStart(request, {
      triggerPhrase: defaults.triggerPhrase,
      label: defaults.label,
      allowedBots: defaults.allowedBots,
      botLogin: deps.botLogin,
    }).start
  );
}

/** A check GitHub kept failing (5xx, network, rate limit); any other failure is thrown as before. */
interface Unchecked {
  failed: unknown;
}

function unlessTransient(error: unknown): Unchecked {
  if (!isTransientApiError(error)) throw error;
  return { failed: error };
}

function isConfig(value: ConfigResult | Unchecked): value is ConfigResult {
  return !("failed" in value);
}
