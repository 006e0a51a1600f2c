import * as z from "../zod.js";

/**
 * A repository's dependency run, as the App's scheduler asks for it: the
 * input of a "deps" job (service/job-kinds/deps.ts runs it).
 */
export const scheduledRepositorySchema = z.object({
  installationId: z.number().check(z.int()),
  owner: z.string().check(z.minLength(1)),
  repo: z.string().check(z.minLength(1)),
  cloneUrl: z.string().check(z.minLength(1)),
  defaultBranch: z.string().check(z.minLength(1)),
  /** Only updates that fix known advisories (the scheduler's check between scheduled runs). */
  securityOnly: z.optional(z.boolean()),
});
export type ScheduledRepository = z.infer<typeof scheduledRepositorySchema>;
