import type { Usage } from "../agent/model/model.js";
import { formatCount, formatUsd, inlineCode, plural, tableCell } from "../github/markdown.js";
import type { CommandResult } from "../kernel/run-command.js";
import { type CheckRun, checkStatus } from "../report/checks.js";
import { type FileStat, totalStats } from "../report/file-stat.js";

/**
 * What a run leaves on the workflow page: the step outputs (for later steps)
 * and the step summary (for people). Pure: the caller redacts free text.
 */

export type ActionConclusion = "success" | "failure" | "no_changes" | "skipped";

export interface ActionReport {
  conclusion: ActionConclusion;
  /** One line on what happened; for skips and failures, why. */
  headline: string;
  branch?: string | undefined;
  pullRequest?: { number: number; url: string } | undefined;
  files?: FileStat[] | undefined;
  /** The agent's check commands, in order (see report/checks.ts). */
  checks?: CheckRun[] | undefined;
  verify?: CommandResult | undefined;
  turns?: number | undefined;
  usage?: Usage | undefined;
  costUsd?: number | undefined;
  transcriptPath?: string | undefined;
  /** The job's page (job-view.ts): attached to the run, or a file on the runner. */
  jobView?: JobViewLink | undefined;
  /** The job's final report (the tracking comment's text, with failed checks' output), shown below the table. */
  details?: string | undefined;
}

export interface JobViewLink {
  path: string;
  /** The artifact's page, when the run attached it. */
  url?: string | undefined;
}

export const OUTPUT_NAMES = [
  "conclusion",
  "branch",
  "pr_number",
  "pr_url",
  "cost_usd",
  "turns",
  "transcript_path",
] as const;

export type OutputName = (typeof OUTPUT_NAMES)[number];

/** Every output is set, "" when the run has no value for it, so `if:` expressions need no guards. */
export function actionOutputs(report: ActionReport): Record<OutputName, string> {
  return {
    conclusion: report.conclusion,
    branch: report.branch ?? "",
    pr_number: report.pullRequest ? String(report.pullRequest.number) : "",
    pr_url: report.pullRequest?.url ?? "",
    cost_usd: report.costUsd === undefined ? "" : report.costUsd.toFixed(4),
    turns: report.turns === undefined ? "" : String(report.turns),
    transcript_path: report.transcriptPath ?? "",
  };
}

const ICONS: Record<ActionConclusion, string> = {
  success: "🚀",
  failure: "😕",
  no_changes: "💬",
  skipped: "⏭️",
};

function verifyCell(verify: CommandResult | undefined): string {
  if (!verify) return "not run";
  const command = inlineCode(verify.command, 60);
  return verify.passed ? `✅ ${command} passed` : `❌ ${command} failed (exit ${verify.exit})`;
}

const MAX_CHECKS_IN_CELL = 10;

function checksCell(report: ActionReport): string {
  const { checks } = report;
  if (!checks) return "–";
  if (checks.length === 0) {
    const changed = (report.files?.length ?? 0) > 0;
    return changed && !report.verify
      ? "⚠️ nothing was run to check the change"
      : "none run by the agent";
  }
  const shown = checks.slice(-MAX_CHECKS_IN_CELL).map((run) => {
    const status = checkStatus(run);
    return `${status.icon} ${inlineCode(run.command, 60)} ${status.words}`;
  });
  const earlier = checks.length - shown.length;
  if (earlier > 0) shown.unshift(`${plural(earlier, "earlier run")} not listed`);
  return shown.join("<br>");
}

function filesCell(files: FileStat[] | undefined): string {
  if (!files || files.length === 0) return "none";
  const total = totalStats(files);
  return `${plural(files.length, "file")} (+${total.additions} −${total.deletions})`;
}

function tokensCell(usage: Usage | undefined): string {
  if (!usage) return "–";
  return `${formatCount(usage.inputTokens)} in, ${formatCount(usage.outputTokens)} out, ${formatCount(usage.cacheReadTokens)} cache read`;
}

export function renderStepSummary(report: ActionReport): string {
  const parts = [`### ${ICONS[report.conclusion]} patchwright: ${tableCell(report.headline)}`];
  if (report.conclusion !== "skipped") {
    const pull = report.pullRequest;
    const rows: Array<[string, string]> = [
      ["Branch", report.branch ? inlineCode(report.branch) : "–"],
      ["Pull request", pull ? `[#${pull.number}](${pull.url})` : "–"],
      ["Files", filesCell(report.files)],
      ["Checks run by the agent", checksCell(report)],
      ["Verify", verifyCell(report.verify)],
      ["Turns", report.turns === undefined ? "–" : String(report.turns)],
      ["Tokens", tokensCell(report.usage)],
      ["Cost", report.costUsd === undefined ? "–" : formatUsd(report.costUsd)],
    ];
    parts.push(
      ["| | |", "| --- | --- |", ...rows.map(([k, v]) => `| ${k} | ${tableCell(v)} |`)].join("\n"),
    );
  }
  if (report.details?.trim()) parts.push(report.details.trim());
  if (report.jobView?.url) {
    parts.push(
      `<sub>[The job's page](${report.jobView.url}) (an HTML file attached to this run)</sub>`,
    );
  } else if (report.jobView) {
    parts.push(
      `<sub>The job's page: ${inlineCode(report.jobView.path, 300)} (upload it with actions/upload-artifact)</sub>`,
    );
  }
  if (report.transcriptPath) {
    parts.push(
      `<sub>Transcript: ${inlineCode(report.transcriptPath, 300)} (upload it with actions/upload-artifact)</sub>`,
    );
  }
  return `${parts.join("\n\n")}\n`;
}
