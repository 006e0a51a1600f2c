import type { RepoConfig } from "../../config/schema.js";
import type { JobRequest } from "../../requests/request.js";
import type { ThreadServices } from "../services.js";
import { sleepFor } from "./kind.js";

/**
 * Whether an event's pull request is one the bot tends and needs it now:
 * open, the bot's own (its branch, from this repository), and for a CI
 * failure, with CI fixing on and the failed commit still its head; for a
 * moved base, conflicting.
 */
export async function tendedPullRequest(
  services: Pick<ThreadServices, "octokit" | "botLogin">,
  request: JobRequest,
  config: RepoConfig,
  sleep: (ms: number) => Promise<void> = sleepFor,
): Promise<boolean> {
  const params = {
    owner: request.repo.owner,
    repo: request.repo.name,
    pull_number: request.target.number,
  };
  let { data } = await services.octokit.rest.pulls.get(params);
  const bot = services.botLogin.toLowerCase().replace(/\[bot\]$/, "");
  const own =
    data.state === "open" &&
    data.head.ref.startsWith(config.branchPrefix) &&
    data.head.repo?.full_name === data.base.repo.full_name &&
    (data.user?.login ?? "").toLowerCase().replace(/\[bot\]$/, "") === bot;
  if (!own) return false;
  if (request.task === "fix_ci") {
    return config.ciFix.enabled && data.head.sha === request.ci?.headSha;
  }
  if (request.task === "update_branch") {
    // GitHub works mergeability out in the background after a push: null until then.
    for (let i = 0; i < 5 && data.mergeable === null; i++) {
      await sleep(2_000);
      ({ data } = await services.octokit.rest.pulls.get(params));
    }
    return data.mergeable === false || data.mergeable_state === "dirty";
  }
  return true;
}
