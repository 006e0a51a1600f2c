import { z } from "zod";

/**
 * A repository's dependency run, as the App's scheduler asks for it: the
 * input of a "deps" job (service/job-kinds/deps.ts runs it).
 */
export const scheduledRepositorySchema = z.object({
  installationId: z.number().int(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  cloneUrl: z.string().min(1),
  defaultBranch: z.string().min(1),
  /** Only updates that fix known advisories (the scheduler's check between scheduled runs). */
  securityOnly: z.boolean().optional(),
});
export type ScheduledRepository = z.infer<typeof scheduledRepositorySchema>;
