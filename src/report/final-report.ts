import type { AgentStopReason } from "../agent/events.js";
import type { ChangeResult } from "../change/change.js";
import { CONFIG_FILE } from "../config/defaults.js";
import {
  clip,
  codeBlock,
  details,
  formatCount,
  formatUsd,
  inlineCode,
  MAX_REPORT_TEXT_CHARS,
  plural,
  tail,
} from "../github/markdown.js";
import { type CheckFacts, renderChecks } from "./checks-section.js";
import { type FileStat, totalStats } from "./file-stat.js";
import {
  agentSummary,
  type CommitSummary,
  type RunStats,
  renderCommits,
  renderDrift,
  renderUsage,
} from "./summary.js";

/** The tracking comment's last word on a job: success, failure (with what to do next) or no changes. */

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
  | "sandbox_unavailable"
  | "setup_failed"
  | "push_failed"
  | "internal";

/** The server declined the job's branch (protected branch, pre-receive hook), and where the work went. */
export interface DeclinedPush {
  branch: string;
  /** What the server said. */
  reason: string;
  commits: number;
  /** Where the commits were pushed instead. */
  sideBranch?: string | undefined;
  sideBranchUrl?: string | undefined;
  /** The change, attached when no branch took the commits. */
  patch?: string | undefined;
}

/** The limits in force, so a failure can name the number that was reached. */
export interface JobLimits {
  maxTurns?: number | undefined;
  maxCostUsd?: number | undefined;
  timeoutMinutes?: number | undefined;
}

export type FinalReportInput =
  | ({
      outcome: "success";
      branch: string;
      branchUrl?: string | undefined;
      /** The pull request opened or updated; absent when commits went onto the PR being discussed. */
      pullRequest?: PullRequestLink | undefined;
      summary?: string | undefined;
      commits: CommitSummary[];
      files?: FileStat[] | undefined;
      drift?: string[] | undefined;
      run?: RunStats | undefined;
    } & CheckFacts)
  | ({
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
      /** Set when the failure is a declined push: the report then says where the work went instead. */
      pushDeclined?: DeclinedPush | undefined;
      run?: RunStats | undefined;
    } & CheckFacts)
  | {
      outcome: "no_changes";
      /** The agent's answer (sanitized by the caller). */
      answer: string;
      run?: RunStats | undefined;
    };

const MAX_ERROR_CHARS = 1_000;

/** The tracking comment's last word on a job. */
export function renderFinalReport(input: FinalReportInput): string {
  const parts: string[] = [];
  if (input.outcome === "success") {
    parts.push(`**${successHeadline(input)}**`);
    // A new pull request's body has the summary; the comment stays short.
    const showSummary = input.summary?.trim() && !input.pullRequest?.created;
    if (showSummary) parts.push(agentSummary(input.summary ?? "", MAX_REPORT_TEXT_CHARS));
    if (input.commits.length > 0) parts.push(renderCommits(input.commits));
    if (input.files && input.files.length > 0) {
      const total = totalStats(input.files);
      parts.push(
        `${plural(input.files.length, "file")} changed (+${total.additions} −${total.deletions})`,
      );
    }
    if (input.drift?.length) parts.push(renderDrift(input.drift));
    parts.push(renderChecks(input));
  } else if (input.outcome === "failure" && input.pushDeclined) {
    parts.push(...renderDeclined(input.pushDeclined), renderChecks(input));
  } else if (input.outcome === "failure") {
    const text = FAILURES[input.failure];
    parts.push(`**😕 ${text.title}**`, text.explain(input.limits ?? {}, input.run));
    if (input.error?.trim()) parts.push(renderError(input.error));
    parts.push(renderPartial(input.partial));
    parts.push(`**What to do:** ${text.advice}`);
    // "Nothing was run to check this change" only where there is a change.
    if (input.checks?.length || input.verify || input.partial?.commits) {
      parts.push(renderChecks(input));
    }
  } else {
    parts.push(clip(input.answer.trim(), MAX_REPORT_TEXT_CHARS) || "_The agent gave no answer._");
    parts.push("No files were changed, so nothing was committed.");
  }
  if (input.run) parts.push(`<sub>${renderUsage(input.run)}</sub>`);
  return parts.filter((part) => part !== "").join("\n\n");
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

/** The report's account of a declined push, from the job's result; undefined when none was declined. */
export function declinedPushOf(
  job: Pick<ChangeResult, "pushDeclined" | "patch" | "commits">,
): DeclinedPush | undefined {
  if (!job.pushDeclined) return undefined;
  const patch = job.pushDeclined.sideBranch ? undefined : job.patch;
  return { ...job.pushDeclined, commits: job.commits.length, ...(patch ? { patch } : {}) };
}

/**
 * Says plainly which of the two happened: the commits are on a side branch,
 * or nothing was pushed and the change is attached as a patch.
 */
function renderDeclined(declined: DeclinedPush): string[] {
  const branch = inlineCode(declined.branch);
  const commits = declined.commits > 0 ? plural(declined.commits, "commit") : "commits";
  const why = `(a protected branch or a server-side hook; it said ${inlineCode(declined.reason, 300)})`;
  const allow =
    "let the bot push its own branches (branch protection rules, push rulesets or hooks)";
  if (declined.sideBranch) {
    const side = link(inlineCode(declined.sideBranch), declined.sideBranchUrl);
    return [
      `**😕 The push to ${branch} was declined; the work was pushed to ${side} instead**`,
      `The repository did not accept ${branch} ${why}. The job's ${commits} went to ${side}, so nothing is lost.`,
      `**What to do:** open a pull request from ${side} yourself, or ${allow} and mention the bot again.`,
    ];
  }
  return [
    `**😕 The push to ${branch} was declined; nothing was pushed**`,
    `The repository did not accept ${branch} ${why}, nor a side branch for the work, so no branch has the job's ${commits}.`,
    declined.patch
      ? `The change is attached as a patch instead:\n\n${renderPatch(declined.patch)}`
      : "The change could not be kept as a patch either; it is lost with the job.",
    declined.patch
      ? `**What to do:** apply it with \`git apply\` on a checkout of the branch the job started from, or ${allow} and mention the bot again.`
      : `**What to do:** ${allow}, then mention the bot again.`,
  ];
}

/** Patches beyond this are cut; a comment must stay under GitHub's body limit. */
const MAX_PATCH_CHARS = 40_000;

function renderPatch(patch: string): string {
  const lines = patch.replace(/\n$/, "").split("\n");
  const summary = `Patch (${plural(lines.length, "line")})`;
  if (patch.length <= MAX_PATCH_CHARS) return details(summary, codeBlock(patch, "diff"));
  const cut = patch.slice(0, MAX_PATCH_CHARS);
  const shown = cut.slice(0, Math.max(0, cut.lastIndexOf("\n")));
  const note = `The patch is too long to show in full: these are the first ${formatCount(shown.split("\n").length)} of ${formatCount(lines.length)} lines, which cannot be applied on their own.`;
  return details(summary, `${codeBlock(shown, "diff")}\n\n${note}`);
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
    advice: `Raise \`max_cost_usd\` in ${CONFIG_FILE}, ask again with a larger budget in the request (\`budget $10\`, up to \`max_cost_per_request_usd\`), or ask for a smaller change.`,
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
  sandbox_unavailable: {
    title: "Could not start the sandbox",
    explain: () =>
      "patchwright runs the repository's code and the agent's commands only inside a sandbox, and none could start on the machine running it.",
    advice:
      "The error above names the fix; it is for whoever runs patchwright (the App's server or the workflow), not the repository.",
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

/** A request a job took, and where it was asked. */
export interface AnsweredRequest {
  login: string;
  url?: string | undefined;
}

/**
 * The requests one job answered (rapid mentions folded into it), oldest
 * first, each linked to the comment that asked: every requester finds their
 * own request in the report, not only the last one's author.
 */
export function renderAnsweredRequests(requests: readonly AnsweredRequest[]): string {
  const items = requests.map((request, index) => {
    const who = `@${request.login}'s request`;
    return `${index + 1}. ${request.url ? `[${who}](${request.url})` : who}`;
  });
  return [`**This answers ${requests.length} requests** (oldest first):`, ...items].join("\n");
}
