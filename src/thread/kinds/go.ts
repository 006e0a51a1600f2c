import { inlineCode } from "../../github/markdown.js";
import { sanitizeUntrusted } from "../../github/sanitize.js";
import type { TaskContext, TaskPlan, ThreadKind } from "./kind.js";
import { markWent, planFor, plansInThread } from "./plan-comments.js";
import { goInstruction, planTextOf } from "./plan-output.js";
import { planCommandOf } from "./plan-words.js";

/**
 * `@agent go` (or a 👍 on a plan, in the App): the thread's plan carried
 * out. The change's instruction is the task the plan was made for, the
 * plan's words as its comment holds them now, and the go's own changes
 * ("go, but keep the old API"), which win. Only a writer gets here (admit
 * checks the requester; the 👍 watch checks the reacting person too). A plan
 * is taken once: the first go marks it, and a later go (a 👍 after
 * `@agent go`, or a second `@agent go`) is answered with where the work
 * went. Jobs on one thread run one at a time, so the mark cannot race.
 */
export const goPlanner: ThreadKind["plan"] = planGo;

async function planGo(ctx: TaskContext): Promise<TaskPlan> {
  const { services, request, config } = ctx;
  const phrase = config.triggerPhrase;
  const login = request.requester.login;
  const plans = await plansInThread(services.octokit, request, services.botLogin);
  // A 👍's request names the plan comment it was given on.
  const named = request.task === "go" ? request.source.id : undefined;
  const plan = planFor(plans, named);
  if (!plan) {
    return {
      done: {
        outcome: "failure",
        markdown: `I found no plan of mine in this thread to go ahead with, @${login}. Ask for one first with ${inlineCode(`${phrase} plan <what to do>`)}, then say ${inlineCode(`${phrase} go`)} under it; or ask for the change directly.`,
      },
    };
  }
  const went = plan.marker.went;
  const ownRun = went?.job !== undefined && went.job === ctx.jobId;
  if (went && !ownRun) {
    const where = went.url ? ` ([the work](${went.url}))` : "";
    return {
      done: {
        outcome: "failure",
        markdown: `[This plan](${plan.url}) already went ahead: @${went.by} said go${where}. A plan is carried out once; for another try, ask for a new one with ${inlineCode(`${phrase} plan …`)}, or ask for the change directly.`,
      },
    };
  }
  if (!went) {
    // The plan links to the work: its tracking comment.
    await ctx.tracking;
    await markWent(services.octokit, request.repo, plan, {
      by: login,
      at: new Date(services.clock.now()).toISOString(),
      ...(ctx.jobId ? { job: ctx.jobId } : {}),
      ...(ctx.status.commentUrl() ? { url: ctx.status.commentUrl() } : {}),
    });
  }
  const clean = (text: string) => sanitizeUntrusted(text, services.redact).trim();
  const asked = planCommandOf(request.instruction, phrase);
  const changes = asked?.kind === "go" ? asked.changes : "";
  const planned = await ctx.planRequest({
    instruction: goInstruction({
      task: clean(plan.marker.task),
      by: plan.marker.by,
      plan: clean(planTextOf(plan.body)),
      planUrl: plan.url,
      changes: clean(changes),
      goBy: login,
    }),
  });
  return {
    ...planned,
    followsPlan: { url: plan.url, files: plan.marker.files, by: plan.marker.by, goBy: login },
  };
}
