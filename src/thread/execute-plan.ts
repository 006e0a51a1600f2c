import type { ChangeResult } from "../change/change.js";
import { runChange } from "../change/run-change.js";
import type { RepoConfig } from "../config/schema.js";
import type { JobEvents } from "../kernel/events.js";
import { handedBack, runJobSequence } from "../kernel/sequence.js";
import type { ThreadOutcome, ThreadPlan } from "./plan.js";
import type { Published, publishResult } from "./publish.js";
import type { ThreadServices } from "./services.js";

/**
 * The one executor of plans: the change (its steps), on the sequence every
 * job kind shares (kernel/sequence.ts: work, publish, let go of the
 * checkpoint), then the final report, or the kind's own answer instead.
 * Dependency groups run on the same sequence with steps of their own
 * (deps/group/run-deps-group.ts).
 */

export interface ExecutedPlan extends ThreadOutcome {
  /** The final report, for the tracking comment or the log; none when interrupted. */
  report?: { markdown: string; outcome: "success" | "failure" };
}

export interface ExecuteOptions {
  /**
   * The change's fetch or push met a server that was down (after git's own
   * retries): throw a TransientJobError instead of reporting, so the caller
   * can hand the job back to the queue while it has attempts left.
   */
  throwTransient?: boolean | undefined;
  /** What makes the change and what publishes it (default: the change runner, GitHub). */
  change?: typeof runChange | undefined;
  publish?: typeof publishResult | undefined;
}

export async function executePlan(
  services: ThreadServices,
  config: RepoConfig,
  plan: ThreadPlan,
  events: JobEvents,
  options: ExecuteOptions = {},
): Promise<ExecutedPlan> {
  const steps = await stepsOf(services, plan.work);
  const outcome = await runJobSequence<ChangeResult, Published>(
    {
      work: () => (options.change ?? runChange)(services, plan.input, events, steps),
      publish: async (job) =>
        (options.publish ?? (await publishing()).publishResult)(services, config, plan, job),
    },
    {
      signal: services.signal,
      checkpointed: plan.input.checkpointRef !== undefined,
      throwTransient: options.throwTransient,
      onPushed: (job) => events.pushed(job.branch),
      onWarning: (message) => events.warning(message),
    },
  );
  const job = outcome.work;
  if (outcome.interrupted) return { job, conclusion: "interrupted" };
  const { answer, pullRequest } = outcome.published;
  if (answer !== undefined) {
    return { job, conclusion: "success", report: { markdown: answer, outcome: "success" } };
  }
  const { finalReport } = await reporting();
  const report = finalReport(job, config, services.redact, pullRequest);
  if (plan.followsPlan) {
    const { renderFollowedPlan } = await import("./kinds/plan-report.js");
    const followed = services.redact(renderFollowedPlan(plan.followsPlan, job, { brief: true }));
    report.markdown = `${report.markdown}\n\n${followed}`;
  }
  if (plan.frame) {
    const { before, after } = plan.frame;
    report.markdown = [before, report.markdown, after].filter(Boolean).join("\n\n");
  }
  const conclusion =
    job.commits.length === 0 && report.outcome === "success" ? "no_changes" : report.outcome;
  return { job, ...(pullRequest ? { pullRequest } : {}), conclusion, report };
}

/**
 * How a change is published (a pull request, a branch, a review...) and
 * reported, loaded once the change is made: the way to the agent's first
 * model request (the Action's start) needs none of it, nor a branch
 * update's steps (12 and 5 kB of the Action's start chunks; the reports and
 * the diff library under them ~30 kB more).
 */
const publishing = () => import("./publish.js");
const reporting = () => import("./report.js");

/** The steps that make the plan's work (undefined: the agent's, AGENT_STEPS). */
async function stepsOf(services: ThreadServices, work: ThreadPlan["work"]) {
  switch (work.kind) {
    case "agent":
      return undefined;
    case "update_branch":
      return (await import("../change/update-branch.js")).updateBranchSteps(work.strategy);
    case "dependency_pr": {
      // Loaded for this kind only: the npm registry's client under it is a
      // large part of the Action's bundle, which every other run would compile.
      const [{ dependencyPrSteps }, { githubReleases }] = await Promise.all([
        import("../deps/pr/steps.js"),
        import("../deps/registry/releases.js"),
      ]);
      return dependencyPrSteps({ bot: work.bot, releases: githubReleases(services.octokit) });
    }
  }
}

/** Stopped by a shutdown, in a job that can resume (see handedBack). */
export function isInterrupted(
  services: Pick<ThreadServices, "signal">,
  job: ChangeResult | undefined,
  checkpointRef: string | undefined,
): boolean {
  return handedBack(checkpointRef !== undefined, services.signal, job);
}
