import { loadRepoConfig } from "../../config/load.js";
import { defaultConfig } from "../../config/schema.js";
import type { JobResult } from "../../queue/types.js";
import { type JobRequest, jobKey, triggerKey } from "../../requests/request.js";
import { isTendedBot } from "../../thread/kinds/tended.js";
import type { WorkerServices } from "../worker-services.js";
import type { KindJob } from "./inputs.js";
import type { JobKindDefinition } from "./kind.js";

/**
 * A branch moved: each open pull request of the bot's (or of a dependency
 * bot it tends, see tend_bot_prs) that is based on it
 * gets its own update job (queued under the pull request's key, so it never
 * runs beside another job on that thread). Whether it conflicts is that
 * job's first question (see upkeep-plans.ts tendedPullRequest).
 */
export const baseMovedKind: JobKindDefinition<"base_moved"> = {
  kind: "base_moved",
  run: runBaseMovedRecord,
};

async function runBaseMovedRecord(
  job: KindJob<"base_moved">,
  services: WorkerServices,
): Promise<JobResult> {
  const moved = job.record.inputs.at(-1);
  if (!moved || !services.submit) {
    return { status: "failed", message: "the job record holds no push this version can read" };
  }
  const octokit = services.github.installation(moved.installationId);
  const repo = { owner: moved.repo.owner, repo: moved.repo.name };
  const loaded = await loadRepoConfig(octokit, { ...repo, ref: moved.repo.defaultBranch });
  const config = loaded.ok ? loaded.config : defaultConfig();
  const pulls = await octokit.paginate(octokit.rest.pulls.list, {
    ...repo,
    state: "open",
    base: moved.baseRef,
    per_page: 100,
  });
  let queued = 0;
  for (const pull of pulls) {
    // The bot's own, or a listed dependency bot's (tended once patchwright pushed to it).
    const tended =
      pull.head.ref.startsWith(config.branchPrefix) || isTendedBot(config, pull.user?.login ?? "");
    if (!tended) continue;
    if (pull.head.repo?.full_name !== pull.base.repo.full_name) continue;
    const request: JobRequest = {
      trigger: "push",
      deliveryId: `${moved.deliveryId}:${pull.number}`,
      installationId: moved.installationId,
      repo: moved.repo,
      target: {
        kind: "pull_request",
        number: pull.number,
        title: pull.title,
        body: "",
        state: "open",
        locked: false,
      },
      pullRequest: {
        headRef: pull.head.ref,
        headSha: pull.head.sha,
        headRepoFullName: pull.head.repo.full_name,
        baseRef: pull.base.ref,
        isFork: false,
      },
      instruction: "",
      source: { kind: "event", label: `base:${moved.after}` },
      requester: { login: "patchwright", id: 0, type: "Bot" },
      task: "update_branch",
    };
    const submitted = await services.submit({
      kind: "request",
      key: jobKey(request),
      deliveryId: request.deliveryId,
      triggerId: triggerKey(request),
      installationId: moved.installationId,
      input: request,
    });
    if (submitted.status !== "duplicate") queued += 1;
  }
  services.log.info({ job: job.record.id, base: moved.baseRef, queued }, "base moved");
  return { status: "done", conclusion: queued > 0 ? "success" : "no_changes" };
}
