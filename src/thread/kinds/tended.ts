import type { RepoConfig } from "../../config/schema.js";
import { sameLogin } from "../../github/logins.js";
import type { JobRequest } from "../../requests/request.js";
import type { ThreadServices } from "../services.js";
import { sleepFor } from "./kind.js";

/**
 * Whether an event's pull request is one the bot tends and needs it now:
 * open, from this repository, and either the bot's own (its branch) or,
 * with `tend_bot_prs`, one a listed dependency bot opened that no person
 * pushed to since. For a CI failure, the failed commit must still be its
 * head (and CI fixing on, for the bot's own); for a moved base, it must
 * conflict, and another bot's pull request is kept up to date only once
 * patchwright has pushed to it (its bot stopped rebasing it then).
 * False when it is not tended now; else which bot's pull request it is,
 * when it is another bot's (the CI fix then plans the dependency fix).
 */
export type Tended = false | { dependencyBot?: string };

export async function tendedPullRequest(
  services: Pick<ThreadServices, "octokit" | "botLogin">,
  request: JobRequest,
  config: RepoConfig,
  sleep: (ms: number) => Promise<void> = sleepFor,
): Promise<Tended> {
  const params = {
    owner: request.repo.owner,
    repo: request.repo.name,
    pull_number: request.target.number,
  };
  let { data } = await services.octokit.rest.pulls.get(params);
  if (data.state !== "open" || data.head.repo?.full_name !== data.base.repo.full_name) return false;
  const author = data.user?.login ?? "";
  const own = data.head.ref.startsWith(config.branchPrefix) && sameLogin(author, services.botLogin);
  const dependencyBot = !own && isTendedBot(config, author);
  if (!own && !dependencyBot) return false;
  if (dependencyBot) {
    const commits = await pullCommitAuthors(services, params);
    if (commits && !onlyBots(commits, [author, services.botLogin])) return false;
    const pushedTo = commits?.some((c) => sameLogin(c, services.botLogin)) === true;
    if (request.task === "update_branch" && !pushedTo) return false;
  }
  const tended = dependencyBot ? { dependencyBot: author } : {};
  if (request.task === "fix_ci") {
    const wanted = (dependencyBot || config.ciFix.enabled) && data.head.sha === request.ci?.headSha;
    return wanted && tended;
  }
  if (request.task === "update_branch") {
    // GitHub works mergeability out in the background after a push: null until then.
    for (let i = 0; i < 5 && data.mergeable === null; i++) {
      await sleep(2_000);
      ({ data } = await services.octokit.rest.pulls.get(params));
    }
    return (data.mergeable === false || data.mergeable_state === "dirty") && tended;
  }
  return tended;
}

/** Whether `tend_bot_prs` lists the pull request's author. */
export function isTendedBot(config: Pick<RepoConfig, "tendBotPrs">, author: string): boolean {
  return config.tendBotPrs?.bots.some((bot) => sameLogin(bot, author)) === true;
}

/**
 * The GitHub logins of the pull request's commits' authors; "" for a
 * commit GitHub could not tie to an account (someone's local email).
 * Undefined when GitHub would not list them: the branch's commits are
 * checked again in the workspace before the agent runs (deps/pr/), so this
 * is the quiet early answer, not the only one.
 */
async function pullCommitAuthors(
  services: Pick<ThreadServices, "octokit">,
  params: { owner: string; repo: string; pull_number: number },
): Promise<string[] | undefined> {
  try {
    const commits = await services.octokit.paginate(services.octokit.rest.pulls.listCommits, {
      ...params,
      per_page: 100,
    });
    return commits.map((c) => c.author?.login ?? "");
  } catch {
    return undefined;
  }
}

function onlyBots(authors: string[], bots: string[]): boolean {
  return authors.every((login) => bots.some((bot) => sameLogin(login, bot)));
}
