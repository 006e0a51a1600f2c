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

export interface PullRequestLink {
  number: number;
  url: string;
  created: boolean;
  draft?: boolean | undefined;
}

/** Why a job failed: how the agent stopped, or which job step broke. */
export type FailureKind =
  | Exclude<AgentStopReason, "end_turn">
  | "workspace_failed"
  | "setup_failed"
  | "push_failed"
  | "internal";

/** The limits in force, so a failure can name the number that was reached. */
export interface JobLimits {
  maxTurns?: number | undefined;
  maxCostUsd?: number | undefined;
  timeoutMinutes?: number | undefined;
}

export type FinalReportInput =
  | {
      outcome: "success";
      branch: string;
      branchUrl?: string | undefined;
      /** The pull request opened or updated; absent when commits went onto the PR being discussed. */
      pullRequest?: PullRequestLink | undefined;
      summary?: string | undefined;
      commits: CommitSummary[];
      files?: FileStat[] | undefined;
      verify?: VerifySummary | undefined;
      run?: RunStats | undefined;
    }
  | {
      outcome: "failure";
      failure: FailureKind;
      error?: string | undefined;
      limits?: JobLimits | undefined;
      /** Where the work done before the failure went, if any was pushed. */
      partial?:
        | {
            branch: string;
            branchUrl?: string | undefined;
            commits: number;
            pullRequest?: PullRequestLink | undefined;
          }
        | undefined;
      verify?: VerifySummary | undefined;
      run?: RunStats | undefined;
    }
  | {
      outcome: "no_changes";
      /** The agent's answer (sanitized by the caller). */
      answer: string;
      run?: RunStats | undefined;
    };

const MAX_REPORT_TEXT_CHARS = 10_000;
const MAX_ERROR_CHARS = 1_000;
const CONFIG_FILE = "`.github/patchwright.yml`";

/** The tracking comment's last word on a job. */
export function renderFinalReport(input: FinalReportInput): string {
  const parts: string[] = [];
  if (input.outcome === "success") {
    parts.push(`**${successHeadline(input)}**`);
    const showSummary = input.summary?.trim() && !input.pullRequest?.created;
    if (showSummary) parts.push(clip(input.summary?.trim() ?? "", MAX_REPORT_TEXT_CHARS));
    if (input.commits.length > 0) parts.push(renderCommits(input.commits));
    if (input.files && input.files.length > 0) {
      const total = totalStats(input.files);
      parts.push(
        `${plural(input.files.length, "file")} changed (+${total.additions} −${total.deletions})`,
      );
    }
    if (input.verify) parts.push(renderVerify(input.verify));
  } else if (input.outcome === "failure") {
    const text = FAILURES[input.failure];
    parts.push(`**😕 ${text.title}**`, text.explain(input.limits ?? {}, input.run));
    if (input.error?.trim()) parts.push(renderError(input.error));
    parts.push(renderPartial(input.partial));
    parts.push(`**What to do:** ${text.advice}`);
    if (input.verify) parts.push(renderVerify(input.verify));
  } else {
    parts.push(clip(input.answer.trim(), MAX_REPORT_TEXT_CHARS) || "_The agent gave no answer._");
    parts.push("No files were changed, so nothing was committed.");
  }
  if (input.run) parts.push(`<sub>${renderUsage(input.run)}</sub>`);
  return parts.join("\n\n");
}

function successHeadline(input: Extract<FinalReportInput, { outcome: "success" }>): string {
  const branch = link(inlineCode(input.branch), input.branchUrl);
  const pull = input.pullRequest;
  if (pull) {
    const draft = pull.draft ? " as a draft" : "";
    const verb = pull.created ? "Opened" : "Updated";
    return `🚀 ${verb} pull request [#${pull.number}](${pull.url})${draft} from ${branch}`;
  }
  return `🚀 Pushed ${plural(input.commits.length, "commit")} to ${branch}`;
}

function renderPartial(
  partial: Extract<FinalReportInput, { outcome: "failure" }>["partial"],
): string {
  if (!partial || partial.commits === 0) return "No changes were pushed.";
  const branch = link(inlineCode(partial.branch), partial.branchUrl);
  const pull = partial.pullRequest
    ? ` and is in [#${partial.pullRequest.number}](${partial.pullRequest.url})`
    : "";
  return `The work done so far (${plural(partial.commits, "commit")}) was pushed to ${branch}${pull}, so nothing is lost.`;
}

function renderError(error: string): string {
  const text = error.trim();
  if (!text.includes("\n") && text.length <= 300) return `Error: ${inlineCode(text, 300)}`;
  return details("Error", codeBlock(tail(text, MAX_ERROR_CHARS), "text"));
}

interface FailureText {
  title: string;
  explain(limits: JobLimits, run: RunStats | undefined): string;
  advice: string;
}

const RETRY = "Mention the bot again to retry.";

const FAILURES: Record<FailureKind, FailureText> = {
  max_turns: {
    title: "Stopped at the turn limit",
    explain: (limits, run) =>
      `The agent used all ${limits.maxTurns ?? run?.turns ?? "its"} turns it is allowed before it finished.`,
    advice: `Raise \`max_turns\` in ${CONFIG_FILE}, or ask for a smaller change.`,
  },
  max_cost: {
    title: "Stopped at the cost limit",
    explain: (limits, run) => {
      const cap = limits.maxCostUsd ?? run?.costUsd;
      return `The agent reached the cost limit${cap === undefined ? "" : ` of ${formatUsd(cap)}`} for one job before it finished.`;
    },
    advice: `Raise \`max_cost_usd\` in ${CONFIG_FILE}, or ask for a smaller change.`,
  },
  timeout: {
    title: "Ran out of time",
    explain: (limits) =>
      `The job hit its time limit${limits.timeoutMinutes ? ` of ${plural(limits.timeoutMinutes, "minute")}` : ""} before the agent finished.`,
    advice: `Ask for a smaller step, check whether a command (tests, an install) hangs, or raise \`max_minutes\` in ${CONFIG_FILE}.`,
  },
  aborted: {
    title: "Cancelled",
    explain: () =>
      "The job was cancelled before it finished (the service was stopping or restarting).",
    advice: RETRY,
  },
  refusal: {
    title: "Request declined",
    explain: () => "The model declined to work on this request.",
    advice: "Rephrase the request, saying what should change and why.",
  },
  error: {
    title: "The agent stopped on an error",
    explain: () =>
      "The agent could not continue, usually because the model API failed or was unreachable.",
    advice: `This is often temporary. ${RETRY} If it keeps happening, check the job log and the model API key.`,
  },
  workspace_failed: {
    title: "Could not check out the repository",
    explain: () => "The repository or its branch could not be fetched into a workspace.",
    advice: `Check that the branch still exists and the App can read the repository. ${RETRY}`,
  },
  setup_failed: {
    title: "Setup failed",
    explain: () => "A setup command from the configuration failed, so the agent did not start.",
    advice: `Fix \`setup\` in ${CONFIG_FILE} on the default branch, then ask again.`,
  },
  push_failed: {
    title: "Could not push",
    explain: () => "The changes were made and committed, but pushing the branch failed.",
    advice: `Check branch protection rules and that the App may write to this repository. ${RETRY}`,
  },
  internal: {
    title: "Something went wrong",
    explain: () => "patchwright hit an unexpected problem of its own.",
    advice: `${RETRY} If it happens again, check the job log and report it.`,
  },
};

function link(text: string, url: string | undefined): string {
  return url ? `[${text}](${url})` : text;
}

/** Patches beyond this are cut in the answer; a comment must stay under GitHub's body limit. */
const MAX_PATCH_CHARS = 40_000;

/** The answer on a fork's pull request: the App cannot push there, so the change comes as a patch. */
export function renderForkPatchAnswer(input: {
  patch: string;
  summary: string;
  maxPatchChars?: number | undefined;
}): string {
  const max = input.maxPatchChars ?? MAX_PATCH_CHARS;
  const lines = input.patch.replace(/\n$/, "").split("\n");
  let shown = input.patch;
  let note = "";
  if (input.patch.length > max) {
    const cut = input.patch.slice(0, max);
    shown = cut.slice(0, Math.max(0, cut.lastIndexOf("\n")));
    const kept = shown.split("\n").length;
    note = `\n\nThe patch is too long to show in full: these are the first ${formatCount(kept)} of ${formatCount(lines.length)} lines, which cannot be applied on their own. Ask for a smaller change to get a complete patch.`;
  }
  return [
    clip(input.summary.trim(), MAX_REPORT_TEXT_CHARS) || "_No summary given._",
    "This pull request comes from a fork, and a GitHub App cannot push to branches in other people's forks, so here is the change as a patch instead.",
    details(`Patch (${plural(lines.length, "line")})`, `${codeBlock(shown, "diff")}${note}`),
    `To apply it, save it as \`patchwright.diff\` at the root of your checkout of this branch, then run:\n\n${codeBlock("git apply patchwright.diff", "sh")}`,
  ].join("\n\n");
}

export function renderUnauthorizedAnswer(login: string): string {
  return `Sorry @${login}, only people with write access to this repository can ask me to make changes.`;
}

export function renderClosedAnswer(
  kind: "issue" | "pull_request",
  state: "closed" | "locked" = "closed",
): string {
  const what = kind === "issue" ? "issue" : "pull request";
  return `This ${what} is ${state}, so I won't start work on it. ${state === "closed" ? "Reopen it" : "Unlock it"} and ask again if it still needs doing.`;
}

export function renderQueuedAnswer(position?: number): string {
  const where = position && position > 0 ? ` (number ${position} in the queue)` : "";
  return `Another job is running here; I'll start on this request as soon as it finishes${where}.`;
}

export function renderConfigErrorAnswer(errorMarkdown: string): string {
  return [
    `I couldn't use ${CONFIG_FILE}:`,
    errorMarkdown.trim(),
    "Fix the file on the default branch, then ask again.",
  ].join("\n\n");
}
