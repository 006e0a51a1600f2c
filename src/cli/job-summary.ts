import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ChangeResult } from "../change/change.js";
import { plural } from "../github/markdown.js";
import type { CommandResult } from "../kernel/run-command.js";
import { type CheckRun, checkStatus, checksRun, runsWithOutput } from "../report/checks.js";
import { fileStats } from "../report/diff-stats.js";

const URL_LIKE = /^(?:[a-z][a-z0-9+.-]*:\/\/|[^/@\s]+@[^:\s]+:)/i;

/** `--repo` takes a URL (https, ssh, file) or a local path, which becomes a file:// URL. */
export function toCloneUrl(repo: string, cwd: string): string {
  if (URL_LIKE.test(repo)) return repo;
  return pathToFileURL(isAbsolute(repo) ? repo : resolve(cwd, repo)).href;
}

/** The job's outcome as plain data, for --json and the transcript. */
export function summarizeJob(job: ChangeResult) {
  return {
    branch: job.branch,
    baseBranch: job.baseBranch,
    commits: job.commits.map((c) => ({ sha: c.sha, subject: c.subject, files: c.files })),
    files: fileStats(job.changes),
    checks: checksRun(job.commands),
    verify: job.verify ?? null,
    pushed: job.push?.pushed ?? false,
    fallbackBranch: job.fallbackBranch ?? null,
    drift: job.drift ?? [],
    warnings: job.warnings ?? [],
    error: job.error ?? null,
  };
}

export function renderJobSummary(job: ChangeResult): string {
  const lines: string[] = [];
  // Before the failure they may explain (the project's tool could not be fetched, then setup failed).
  for (const warning of job.warnings ?? []) lines.push(`warning: ${warning}`);
  if (job.error) lines.push(`failed at ${job.error.stage}: ${job.error.message}`);
  if (job.push) {
    const commits = plural(job.commits.length, "commit");
    lines.push(`pushed ${commits} to ${job.branch} (${job.push.sha.slice(0, 7)})`);
  } else if (job.fallbackBranch) lines.push(`work saved on ${job.fallbackBranch}`);
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
  lines.push(...checkLines(checksRun(job.commands), job.verify, job.commits.length > 0));
  if (job.patch) lines.push("patch:", job.patch.trimEnd());
  return lines.join("\n");
}

const OUTPUT_LINES = 10;
const OUTPUT_INDENT = "      ";

/** What was run to check the work, as the PR body says it (see report/checks-section.ts). */
function checkLines(
  checks: readonly CheckRun[],
  verify: CommandResult | undefined,
  changed: boolean,
): string[] {
  if (checks.length === 0 && !verify) {
    return changed
      ? [
          "nothing was run to check the change: the agent ran no tests, linters, type checks or builds, and no verify command ran",
        ]
      : [];
  }
  const lines: string[] = [];
  if (checks.length > 0) {
    const withOutput = new Set(runsWithOutput(checks));
    lines.push("checks the agent ran:");
    for (const run of checks) {
      const status = checkStatus(run);
      lines.push(`  ${status.icon} ${oneLine(run.command)}: ${status.words}`);
      if (withOutput.has(run)) lines.push(...lastLines(run.outputTail));
    }
  } else {
    lines.push("the agent ran no tests, linters, type checks or builds itself");
  }
  if (verify) {
    const verdict = verify.passed ? "passed" : `failed (exit ${verify.exit})`;
    lines.push(`verify: ${verify.command} ${verdict}`);
    if (verify.networkTrouble) lines.push(verify.networkTrouble);
    if (!verify.passed) lines.push(...lastLines(verify.outputTail));
  } else {
    lines.push("verify: none ran after the agent");
  }
  return lines;
}

function lastLines(output: string): string[] {
  const lines = output.trimEnd().split("\n").slice(-OUTPUT_LINES);
  return lines.map(
    (line) => `${OUTPUT_INDENT}${line.length > 200 ? `${line.slice(0, 199)}…` : line}`,
  );
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
