import * as z from "../zod.js";
import { jobRequestSchema } from "./request.js";

/**
 * A plan posted by the App, waiting for a 👍: the input of a "plan_watch"
 * job (service/job-kinds/plan-watch.ts), which looks at the plan comment's
 * reactions now and then until a person with write access gives one, the
 * plan goes ahead another way, or the wait is over. GitHub sends no webhook
 * for reactions, so looking is the only way to see one. It is the plan's
 * own request (its repository, thread and requester, which the job pages
 * show as for any request) with the plan comment and the wait.
 */
export const planWatchSchema = z.extend(jobRequestSchema, {
  installationId: z.number().check(z.int()),
  /**
   * The plan comment: the bot's tracking comment of the plan job, on the
   * conversation (a plan in a review thread goes ahead with `@agent go` only).
   */
  plan: z.object({ id: z.number().check(z.int()), url: z.string() }),
  /** The repository's trigger phrase when the plan was posted: a 👍 becomes `<phrase> go`. */
  triggerPhrase: z.string().check(z.minLength(1)),
  /** When the plan was posted and until when a 👍 counts (ms since the epoch). */
  since: z.number(),
  until: z.number(),
});

export type PlanWatch = z.infer<typeof planWatchSchema>;
