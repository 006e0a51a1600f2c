import type { ModelPrice } from "../../agent/model/model.js";
import { priceOf } from "../../agent/model/pricing.js";
import type { ChangeResult } from "../../change/change.js";
import { sanitizeUntrusted } from "../../github/sanitize.js";
import { stripPhrase } from "../phrase.js";
import type { DonePlan } from "../plan.js";
import { failureOf } from "../report.js";
import type { TaskContext, TaskPlan, ThreadKind } from "./kind.js";
import { estimatePlanCost, type PlanCost } from "./plan-cost.js";
import {
  goInstruction,
  PLAN_FORMAT,
  type PlanMarker,
  parsePlan,
  planTextOf,
  type ReadPlan,
  renderPlanComment,
} from "./plan-output.js";
import { planCommandOf } from "./plan-words.js";

/**
 * A plan before code. `@agent plan <task>`: a read-only run (the read-only
 * preset: reads, searches and read-only commands; every write refused)
 * answers with a plan in the tracking comment, which waits for a go
 * (kinds/go.ts; in the App also a 👍, service/job-kinds/plan-watch.ts).
 * `plan_first:` in the config plans plain requests the same way first:
 * `always` waits for the go; `large` waits only when the plan names more
 * than `plan_first_files` files, and otherwise goes on to code in the same
 * job with the plan as its instruction.
 */

export const planPlanner: ThreadKind["plan"] = async (ctx) => {
  const asked = planCommandOf(ctx.request.instruction, ctx.config.triggerPhrase);
  const made = await makePlan(ctx, asked?.kind === "plan" ? asked.task : "");
  return "done" in made ? made : postPlan(ctx, made);
};

/** A plain request under `plan_first: always | large`: planned first, then waits or goes on. */
export async function planFirst(ctx: TaskContext): Promise<TaskPlan> {
  const made = await makePlan(ctx, stripPhrase(ctx.request.instruction, ctx.config.triggerPhrase));
  if ("done" in made) return made;
  const { mode, maxFiles } = ctx.config.planFirst;
  const files = "plan" in made.read ? made.read.plan.files.map((f) => f.path) : undefined;
  // A plan whose files could not be read is taken as large: a person looks first.
  if (mode === "always" || files === undefined || files.length > maxFiles) {
    return postPlan(ctx, made);
  }
  // The plan's words as a go would read them from its comment.
  const planText = planTextOf(
    renderPlanComment({
      marker: markerOf(ctx, made),
      read: made.read,
      estimate: "",
      triggerPhrase: ctx.config.triggerPhrase,
    }),
  );
  const plan = await ctx.planRequest({
    instruction: goInstruction({
      task: made.task,
      by: ctx.request.requester.login,
      plan: planText,
      changes: "",
    }),
  });
  return {
    ...plan,
    followsPlan: {
      files,
      by: ctx.request.requester.login,
      text: planText,
      planCostUsd: made.cost.planUsd,
    },
  };
}

/** A plan the read-only run made: what the model wrote, read, and what it cost. */
interface MadePlan {
  task: string;
  read: ReadPlan;
  cost: PlanCost;
  job: ChangeResult;
}

async function makePlan(ctx: TaskContext, words: string): Promise<MadePlan | DonePlan> {
  const { services, request, config } = ctx;
  const task = sanitizeUntrusted(words, services.redact).trim();
  const readOnly = await ctx.planRequest({
    instruction: [
      `Make a plan for this request from @${request.requester.login}. Do not change any file.`,
      task || "(The request is this thread's: the issue or pull request above.)",
      PLAN_FORMAT,
    ].join("\n\n"),
    input: {
      policy: { ...config.policy, preset: "read-only", allow: [] },
      push: false,
      verify: null,
      setup: [],
      wantPatch: false,
    },
  });
  const executed = await ctx.execute({
    input: { ...readOnly.input, checkpointRef: undefined },
    work: { kind: "agent" },
    publish: { kind: "plan" },
  });
  // Stopped by a shutdown or a cancel: the job's own handling says so (run-job.ts).
  if (services.signal?.aborted) throw new Error("the plan was stopped before it was done");
  const job = executed.job;
  if (!job?.agent || failureOf(job)) {
    return {
      done: {
        markdown: executed.report?.markdown ?? "I could not make a plan: the run stopped early.",
        outcome: "failure",
      },
    };
  }
  const read = parsePlan(job.agent.finalText);
  const model = readOnly.input.model;
  const cost = estimatePlanCost({
    planUsage: job.agent.usage,
    planCostUsd: job.agent.costUsd,
    files: "plan" in read ? read.plan.files.length : undefined,
    complexity: "plan" in read ? read.plan.complexity : undefined,
    price: priceOfModel(model),
    model: config.model,
    maxCostUsd: config.maxCostUsd,
  });
  return { task, read, cost, job };
}

/** The model's own price; a test double without one is priced by its id, as the loop does. */
function priceOfModel(model: { id: string; price?: ModelPrice | null }): ModelPrice | null {
  return model.price !== undefined ? model.price : priceOf(model.id);
}

function markerOf(ctx: TaskContext, made: MadePlan): PlanMarker {
  return {
    v: 1,
    task: made.task,
    by: ctx.request.requester.login,
    files: "plan" in made.read ? made.read.plan.files.map((f) => f.path) : [],
    ...(ctx.jobId ? { job: ctx.jobId } : {}),
    ...(ctx.request.source.htmlUrl ? { request: ctx.request.source.htmlUrl } : {}),
  };
}

/** The plan as the job's answer: it waits for a go. */
function postPlan(ctx: TaskContext, made: MadePlan): TaskPlan {
  return {
    done: {
      markdown: renderPlanComment({
        marker: markerOf(ctx, made),
        read: made.read,
        estimate: made.cost.markdown,
        triggerPhrase: ctx.config.triggerPhrase,
      }),
      outcome: "success",
      plan: true,
    },
    job: made.job,
  };
}
