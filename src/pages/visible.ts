import type { JobFilter, JobSummary, JobsView } from "../service/jobs-view/types.js";
import type { Access, Viewer } from "./auth/access.js";

/**
 * What a person may see: the jobs of repositories they can read (asked
 * with their own token, a few repositories at a time), all of them for an
 * operator; a job they may not see is "not found", like no job at all.
 */
export function createVisibility(view: JobsView, access: Access) {
  const jobs = async (viewer: Viewer, filter: JobFilter): Promise<JobSummary[]> => {
    const jobs = await view.list(filter);
    if (access.isOperator(viewer)) return jobs;
    const repos = new Map<string, JobSummary["repo"]>();
    for (const job of jobs) repos.set(`${job.repo.owner}/${job.repo.name}`.toLowerCase(), job.repo);
    const readable = new Set<string>();
    const keys = [...repos.keys()];
    // A few at a time: a first visit may ask GitHub about many repositories.
    for (let i = 0; i < keys.length; i += 8) {
      await Promise.all(
        keys.slice(i, i + 8).map(async (key) => {
          const repo = repos.get(key);
          if (repo && (await access.canRead(viewer, repo))) readable.add(key);
        }),
      );
    }
    return jobs.filter((job) => readable.has(`${job.repo.owner}/${job.repo.name}`.toLowerCase()));
  };

  /** The job, when this person may see it; otherwise the same "not found" as for no job at all. */
  const job = async (viewer: Viewer, id: string): Promise<JobSummary | undefined> => {
    const job = await view.get(id);
    if (!job) return undefined;
    return (await access.canRead(viewer, job.repo)) ? job : undefined;
  };

  return { jobs, job };
}
