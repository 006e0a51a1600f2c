import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Identity } from "../git/commits.js";
import { fileStats } from "../job/diff-stats.js";
import type { GitJobResult } from "../job/run-git-job.js";

const URL_LIKE = /^(?:[a-z][a-z0-9+.-]*:\/\/|[^/@\s]+@[^:\s]+:)/i;

/** `--repo` takes a URL (https, ssh, file) or a local path, which becomes a file:// URL. */
export function toCloneUrl(repo: string, cwd: string): string {
  if (URL_LIKE.test(repo)) return repo;
  return pathToFileURL(isAbsolute(repo) ? repo : resolve(cwd, repo)).href;
}

/** Commits made from the CLI carry the local git identity when one is set in the environment. */
export function identityFrom(env: Record<string, string | undefined>): Identity {
  return {
    name: env.GIT_AUTHOR_NAME || "patchwright",
    email: env.GIT_AUTHOR_EMAIL || "patchwright@users.noreply.github.com",
  };
}

/** The job's outcome as plain data, for --json and the transcript. */
export function summarizeJob(job: GitJobResult) {
  return {
    branch: job.branch,
    baseBranch: job.baseBranch,
    commits: job.commits.map((c) => ({ sha: c.sha, subject: c.subject, files: c.files })),
    files: fileStats(job.changes),
    verify: job.verify ?? null,
    pushed: job.push?.pushed ?? false,
    fallbackBranch: job.fallbackBranch ?? null,
    drift: job.drift ?? [],
    error: job.error ?? null,
  };
}

export function renderJobSummary(job: GitJobResult): string {
  const lines: string[] = [];
  if (job.error) lines.push(`failed at ${job.error.stage}: ${job.error.message}`);
  if (job.push)
    lines.push(
      `pushed ${job.commits.length} commit(s) to ${job.branch} (${job.push.sha.slice(0, 7)})`,
    );
  else if (job.fallbackBranch) lines.push(`work saved on ${job.fallbackBranch}`);
  else if (job.commits.length > 0) lines.push(`committed on ${job.branch} (not pushed)`);
  else lines.push("no changes were made");
  for (const commit of job.commits) lines.push(`  ${commit.sha.slice(0, 7)} ${commit.subject}`);
  if (job.drift?.length) {
    lines.push(
      `warning: the per-turn commits missed the workspace's changes to ${job.drift.join(", ")}; the last commit puts them right`,
    );
  }
  const files = fileStats(job.changes);
  if (files.length > 0) {
    lines.push("files:");
    for (const file of files) lines.push(`  ${file.path} +${file.additions} -${file.deletions}`);
  }
  if (job.verify) {
    const verdict = job.verify.passed ? "passed" : `failed (exit ${job.verify.exit})`;
    lines.push(`verify: ${job.verify.command} ${verdict}`);
  }
  if (job.patch) lines.push("patch:", job.patch.trimEnd());
  return lines.join("\n");
}
