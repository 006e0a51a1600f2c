import type { AgentStopReason } from "../agent/events.js";
import type { Usage } from "../agent/model.js";
import {
  codeBlock,
  details,
  formatCount,
  formatDuration,
  formatUsd,
  inlineCode,
  plural,
  tableCell,
  tail,
} from "../github/markdown.js";
import { type FileStat, totalStats } from "./diff-stats.js";

export { type FileStat, type FileStatus, fileStats } from "./diff-stats.js";

/**
 * The texts a job leaves behind: the pull request body and the final report
 * in the tracking comment. Pure functions of what the job did, so the words
 * a maintainer reads are tested line by line. Callers redact; these only
 * format (and cap sizes, so nothing runs into GitHub's body limit).
 */

export interface CommitSummary {
  sha: string;
  subject: string;
}

export interface VerifySummary {
  command: string;
  passed: boolean;
  /** Exit code, or `143 (killed by SIGTERM)` style. */
  exit: string;
  outputTail: string;
}

/** What the agent run cost and how it ended. */
export interface RunStats {
  usage: Usage;
  costUsd: number;
  turns: number;
  durationMs: number;
  model: string;
  stopReason: AgentStopReason;
}

export interface PullRequestBodyInput extends RunStats {
  /** The issue the pull request resolves. */
  closes?: number | undefined;
  request: { login: string; url?: string | undefined };
  /** The agent's final text: what changed and why (sanitized by the caller). */
  summary: string;
  commits: CommitSummary[];
  files: FileStat[];
  verify?: VerifySummary | undefined;
  /** Paths a last commit had to put right (see GitJobResult.drift). */
  drift?: string[] | undefined;
}

const MAX_SUMMARY_CHARS = 20_000;
const MAX_FILES_LISTED = 100;
const MAX_COMMITS_LISTED = 50;
const MAX_OUTPUT_CHARS = 3_000;

export function renderPullRequestBody(input: PullRequestBodyInput): string {
  const parts: string[] = [clip(input.summary.trim(), MAX_SUMMARY_CHARS) || "_No summary given._"];
  if (input.closes !== undefined) parts.push(`Closes #${input.closes}`);
  if (input.stopReason !== "end_turn") {
    parts.push(
      `> [!WARNING]\n> The agent stopped before finishing (${STOP_SHORT[input.stopReason]}). This is the work done so far.`,
    );
  }
  if (input.files.length > 0) parts.push(`### Changes\n\n${renderFilesTable(input.files)}`);
  if (input.commits.length > 0) parts.push(`### Commits\n\n${renderCommits(input.commits)}`);
  if (input.drift?.length) parts.push(renderDrift(input.drift));
  if (input.verify) parts.push(`### Verification\n\n${renderVerify(input.verify)}`);
  parts.push(`### Usage\n\n${renderUsage(input)}`);
  const requester = input.request.url
    ? `[@${input.request.login}'s request](${input.request.url})`
    : `@${input.request.login}'s request`;
  parts.push(`---\n<sub>Made by patchwright at ${requester}.</sub>`);
  return parts.join("\n\n");
}

export function renderFilesTable(files: readonly FileStat[]): string {
  const rows = files.slice(0, MAX_FILES_LISTED).map((file) => {
    const name = `${inlineCode(file.path, 200)}${STATUS_NOTE[file.status]}`;
    if (file.status === "binary") return `| ${tableCell(name)} | | |`;
    return `| ${tableCell(name)} | +${file.additions} | −${file.deletions} |`;
  });
  const more = files.length - MAX_FILES_LISTED;
  if (more > 0) rows.push(`| _and ${plural(more, "more file")}_ | | |`);
  const total = totalStats(files);
  rows.push(
    `| **${plural(files.length, "file")}** | **+${total.additions}** | **−${total.deletions}** |`,
  );
  return ["| File | Added | Removed |", "| --- | ---: | ---: |", ...rows].join("\n");
}

const STATUS_NOTE: Record<FileStat["status"], string> = {
  added: " (new)",
  modified: "",
  deleted: " (deleted)",
  binary: " (binary)",
};

export function renderCommits(commits: readonly CommitSummary[]): string {
  // A bare SHA is autolinked by GitHub; the subject is the committer's own words.
  const lines = commits
    .slice(0, MAX_COMMITS_LISTED)
    .map((c) => `- ${c.sha.slice(0, 7)} ${oneLine(c.subject)}`);
  const more = commits.length - MAX_COMMITS_LISTED;
  if (more > 0) lines.push(`- _and ${plural(more, "more commit")}_`);
  return lines.join("\n");
}

/** Said wherever the job's result is shown: the commits had to be put right. */
export function renderDrift(paths: readonly string[]): string {
  const names = paths.slice(0, MAX_FILES_LISTED).map((path) => inlineCode(path, 200));
  const more = paths.length - MAX_FILES_LISTED;
  if (more > 0) names.push(`and ${plural(more, "more file")}`);
  return [
    "> [!WARNING]",
    `> The agent's recorded changes did not match the workspace it left, for ${names.join(", ")}.`,
    "> The branch holds the workspace's content. Please report this as a patchwright bug.",
  ].join("\n");
}

export function renderVerify(verify: VerifySummary): string {
  const command = inlineCode(verify.command);
  const line = verify.passed
    ? `✅ ${command} passed`
    : `❌ ${command} failed (exit ${oneLine(verify.exit)})`;
  if (!verify.outputTail.trim()) return line;
  const output = codeBlock(tail(verify.outputTail.trimEnd(), MAX_OUTPUT_CHARS), "text");
  return `${line}\n\n${details("Output (last lines)", output)}`;
}

export function renderUsage(stats: RunStats): string {
  const u = stats.usage;
  return [
    plural(stats.turns, "turn"),
    formatDuration(stats.durationMs),
    `${formatCount(u.inputTokens)} tokens in, ${formatCount(u.outputTokens)} out, ${formatCount(u.cacheReadTokens)} cache read, ${formatCount(u.cacheWriteTokens)} cache write`,
    formatUsd(stats.costUsd),
    inlineCode(stats.model),
  ].join(" · ");
}

const STOP_SHORT: Record<AgentStopReason, string> = {
  end_turn: "finished",
  max_turns: "turn limit reached",
  max_cost: "cost limit reached",
  timeout: "time limit reached",
  aborted: "cancelled",
  refusal: "the model declined",
  error: "an error",
};

export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

export function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n\n… (cut: ${formatCount(text.length - maxChars)} more characters)`;
}
