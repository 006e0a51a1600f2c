import { loadRepoConfig } from "../config/load.js";
import { defaultConfig } from "../config/schema.js";
import type { GitHubClient } from "../github/octokit.js";
import type { JobRequest } from "../requests/request.js";
import {
  isOwnRequest,
  isUpkeepEvent,
  type StartRules,
  shouldStart,
} from "../thread/start-rules.js";

/**
 * The webhook's first question: is this delivery for the bot at all? Asked
 * before anything is stored or any API call for the request is made, so
 * chatter on a busy repository costs nothing: the bot's own comments are
 * dropped at once, and the phrase, label and bot rules come from a cache of
 * each repository's config. A repository not in the cache (or whose entry
 * is older than `ttlMs`) has its config read once; then its chatter is free
 * until the entry expires. The worker checks everything again, from the
 * config as it is then, before a job starts (admit.ts).
 */

export type TriggerRules = Omit<StartRules, "botLogin">;

export interface TriggerGateDeps {
  botLogin(): Promise<string>;
  clock: { now(): number };
  /** The rules in the repository's config; default: read `.github/patchwright.yml` through the API. */
  readRules?: ((octokit: GitHubClient, request: JobRequest) => Promise<TriggerRules>) | undefined;
  /** How long a repository's rules are trusted (default 5 minutes). */
  ttlMs?: number | undefined;
  /** Repositories remembered (default 5000); the least recently refreshed go first. */
  maxRepositories?: number | undefined;
}

export interface TriggerGate {
  /**
   * False: not for the bot (no phrase, its own comment, another bot): nothing
   * is stored. `client` is asked for only when the repository's rules must be
   * read, so a delivery answered from the cache builds no GitHub client.
   */
  admits(client: () => Promise<GitHubClient>, request: JobRequest): Promise<boolean>;
  /**
   * Drops what is known of a repository's rules (its default branch moved,
   * so its config may have changed): the next delivery reads them again.
   */
  forget(repo: { owner: string; name: string }): void;
}

const DEFAULT_TTL_MS = 5 * 60_000;
const DEFAULT_MAX = 5000;

/** The file's rules; a broken or missing file is judged by the defaults, as admission does. */
async function readConfigRules(octokit: GitHubClient, request: JobRequest): Promise<TriggerRules> {
  const loaded = await loadRepoConfig(octokit, {
    owner: request.repo.owner,
    repo: request.repo.name,
    ref: request.repo.defaultBranch,
  });
  const config = loaded.ok ? loaded.config : defaultConfig();
  return {
    triggerPhrase: config.triggerPhrase,
    label: config.label,
    allowedBots: config.allowedBots,
  };
}

export function createTriggerGate(deps: TriggerGateDeps): TriggerGate {
  const ttlMs = deps.ttlMs ?? DEFAULT_TTL_MS;
  const max = deps.maxRepositories ?? DEFAULT_MAX;
  const readRules = deps.readRules ?? readConfigRules;
  const cache = new Map<string, { rules: TriggerRules; until: number }>();

  // One read per repository at a time: a burst of deliveries waits for the same answer.
  const reading = new Map<string, Promise<TriggerRules | undefined>>();

  const read = async (
    key: string,
    client: () => Promise<GitHubClient>,
    request: JobRequest,
  ): Promise<TriggerRules | undefined> => {
    let rules: TriggerRules;
    try {
      rules = await readRules(await client(), request);
    } catch {
      // GitHub did not answer: the worker asks again (with retries) and
      // tells the requester if it still cannot; nothing is dropped here.
      return undefined;
    }
    cache.delete(key);
    cache.set(key, { rules, until: deps.clock.now() + ttlMs });
    if (cache.size > max) cache.delete(cache.keys().next().value as string);
    return rules;
  };

  const keyOf = (repo: { owner: string; name: string }) =>
    `${repo.owner}/${repo.name}`.toLowerCase();

  const rulesFor = (
    client: () => Promise<GitHubClient>,
    request: JobRequest,
  ): Promise<TriggerRules | undefined> => {
    const key = keyOf(request.repo);
    const known = cache.get(key);
    if (known && known.until > deps.clock.now()) return Promise.resolve(known.rules);
    let pending = reading.get(key);
    if (!pending) {
      pending = read(key, client, request).finally(() => reading.delete(key));
      reading.set(key, pending);
    }
    return pending;
  };

  return {
    async admits(client, request) {
      // CI that failed on a pull request: whether the bot tends it is the worker's question.
      if (isUpkeepEvent(request)) return true;
      // Unknown when GitHub fails the lookup: storing the job beats a 5xx
      // (a redelivery would fail the same way); the worker asks again. The
      // phrase and bot rules still hold: the bot's own comments are bots'.
      const botLogin = await deps.botLogin().catch(() => "");
      // The bot's own comments come back as deliveries: no config needed to drop them.
      if (botLogin && isOwnRequest(request, botLogin)) return false;
      const rules = await rulesFor(client, request);
      if (!rules) return true;
      return shouldStart(request, { ...rules, botLogin }).start;
    },
    forget(repo) {
      cache.delete(keyOf(repo));
    },
  };
}
