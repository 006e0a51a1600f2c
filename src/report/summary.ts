import type { AgentStopReason } from "../agent/events.js";
import type { Usage } from "../agent/model/model.js";
import {
  blockquote,
  clip,
  formatCount,
  formatDuration,
  formatUsd,
  inlineCode,
  plural,
  tableCell,
} from "../github/markdown.js";
import { type CheckFacts, renderChecks } from "./checks-section.js";
import { type FileStat, totalStats } from "./file-stat.js";

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

/** What the agent run cost and how it ended. */
export interface RunStats {
  usage: Usage;
  costUsd: number;
  turns: number;
  durationMs: number;
  model: string;
  stopReason: AgentStopReason;
  /** The job's cost cap, shown beside the cost ("$0.41 of $2.00 budget"). */
  budgetUsd?: number | undefined;
}

export interface PullRequestBodyInput extends RunStats, CheckFacts {
  /** The issue the pull request resolves. */
  closes?: number | undefined;
  request: { login: string; url?: string | undefined };
  /** The job's page on the App's server (when its pages are on). */
  jobPage?: string | undefined;
  /** The agent's final text: what changed and why (sanitized by the caller). */
  summary: string;
  commits: CommitSummary[];
  files: FileStat[];
  /** Paths a last commit had to put right (see ChangeResult.drift). */
  drift?: string[] | undefined;
  mcp?: McpFacts | undefined;
}

/** What the agent's MCP servers did (AgentResult.mcp). */
export interface McpFacts {
  used: string[];
  failures: Array<{ server: string; message: string }>;
}

const MAX_SUMMARY_CHARS = 20_000;
const MAX_FILES_LISTED = 100;
const MAX_COMMITS_LISTED = 50;

export function renderPullRequestBody(input: PullRequestBodyInput): string {
  const parts: string[] = [agentSummary(input.summary, MAX_SUMMARY_CHARS)];
  if (input.closes !== undefined) parts.push(`Closes #${input.closes}`);
  if (input.stopReason !== "end_turn") {
    parts.push(
      `> [!WARNING]\n> The agent stopped before finishing (${STOP_SHORT[input.stopReason]}). This is the work done so far.`,
    );
  }
  if (input.files.length > 0) parts.push(`### Changes\n\n${renderFilesTable(input.files)}`);
  if (input.commits.length > 0) parts.push(`### Commits\n\n${renderCommits(input.commits)}`);
  if (input.drift?.length) parts.push(renderDrift(input.drift));
  const checks = renderChecks(input);
  if (checks) parts.push(`### Checks\n\n${checks}`);
  if (input.mcp?.used.length) parts.push(`### MCP tools used\n\n${renderMcpUsed(input.mcp.used)}`);
  parts.push(`### Usage\n\n${renderUsage(input)}`);
  const requester = input.request.url
    ? `[@${input.request.login}'s request](${input.request.url})`
    : `@${input.request.login}'s request`;
  const page = input.jobPage ? ` · [Job page](${input.jobPage})` : "";
  parts.push(`---\n<sub>Made by patchwright at ${requester}.${page}</sub>`);
  return parts.join("\n\n");
}

function renderMcpUsed(used: readonly string[]): string {
  return used.map((name) => `- ${inlineCode(name)}`).join("\n");
}

/** For the tracking comment: servers that did not start (the job went on without them), tools used. */
export function renderMcp(mcp: McpFacts | undefined): string {
  if (!mcp) return "";
  const parts: string[] = [];
  if (mcp.failures.length > 0) {
    parts.push(
      [
        "**MCP servers that did not start** (the job went on without them):",
        ...mcp.failures.map((f) => `- ${inlineCode(f.server)}: ${clip(f.message, 300)}`),
      ].join("\n"),
    );
  }
  if (mcp.used.length > 0)
    parts.push(`MCP tools used: ${mcp.used.map((name) => inlineCode(name)).join(", ")}`);
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

export function renderUsage(stats: RunStats): string {
  const u = stats.usage;
  return [
    plural(stats.turns, "turn"),
    formatDuration(stats.durationMs),
    `${u.estimated ? "about " : ""}${formatCount(u.inputTokens)} tokens in, ${formatCount(u.outputTokens)} out, ${formatCount(u.cacheReadTokens)} cache read, ${formatCount(u.cacheWriteTokens)} cache write${u.estimated ? " (estimated from the text: the model's server reports no usage)" : ""}`,
    stats.budgetUsd === undefined || !Number.isFinite(stats.budgetUsd)
      ? formatUsd(stats.costUsd)
      : `${formatUsd(stats.costUsd)} of $${stats.budgetUsd.toFixed(2)} budget`,
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

/**
 * The model's account of its work, quoted as its own: it may say "tests
 * pass" whatever ran, so it never stands where the check results do.
 */
export function agentSummary(summary: string, maxChars: number): string {
  const text = clip(summary.trim(), maxChars);
  return text ? `The agent's summary:\n\n${blockquote(text)}` : "_The agent gave no summary._";
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
