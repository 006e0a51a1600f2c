import type { CommandResult } from "../../kernel/run-command.js";
import type { BumpFailure } from "../fix/task.js";
import type { DepsGroupResult } from "../group/group-result.js";
import { groupTitle } from "../plan/groups.js";
import { fromVersions } from "../plan/outdated.js";
import { warningText } from "../plan/render-plan.js";
import type { DepsJobResult } from "../run-deps-job.js";

/**
 * A dependency run in plain text, one block per group: the CLI prints it,
 * and the App and the Action log it. Plain text: no Markdown markup, which
 * would show as stray backticks in a terminal or a log.
 */
export function renderDepsJobSummary(result: DepsJobResult): string {
  if (result.message) return `patchwright deps: ${result.message}`;
  const warnings = [
    ...(result.plan?.warnings ?? []).map((w) => `WARNING ${warningText(w)}.`),
    ...(result.warnings ?? []).map((w) => `WARNING ${w}`),
  ];
  const blocks = [...warnings, ...result.groups.map(groupBlock)];
  for (const g of result.deferred)
    blocks.push(`WAITING ${groupTitle(g)}: deps.max_open_prs bump pull requests are open`);
  for (const w of result.waiting ?? []) blocks.push(`WAITING ${groupTitle(w.group)}: ${w.reason}`);
  for (const d of result.declined) {
    blocks.push(`SKIPPED ${groupTitle(d.group)}: ${d.url} proposing these versions was closed`);
  }
  if (blocks.length === warnings.length) blocks.push("No updates to propose.");
  return blocks.join("\n\n");
}

function groupBlock(g: DepsGroupResult): string {
  const shipped = g.applied.length > 0 ? { ...g.group, updates: g.applied } : g.group;
  const lines = [`${g.status.toUpperCase().padEnd(7)} ${groupTitle(shipped)} -> ${g.branch}`];
  for (const u of g.applied) {
    const advisories = (u.advisories ?? []).map((a) => `${a.id} (${a.severity})`).join(", ");
    lines.push(
      `  ${u.name} ${fromVersions(u)} -> ${u.to}${advisories ? `, fixes advisory ${advisories}` : ""}`,
    );
  }
  for (const l of g.leftOut) {
    lines.push(`  left out: ${l.update.name} ${fromVersions(l.update)} -> ${l.update.to}`);
  }
  if (g.agent) {
    const files = g.agent.files.join(", ") || "no files";
    // An agent that never got to work says why: "did not fix it" would hide a check that could not run.
    const outcome = g.agent.fixed
      ? "fixed it"
      : g.agent.error
        ? `stopped on an error: ${g.agent.error}`
        : "did not fix it";
    lines.push(`  agent: ${outcome} (${files})`);
  }
  if (g.drift?.length) {
    lines.push(
      `  warning: the agent's recorded changes missed the workspace's for ${g.drift.join(", ")}; the workspace's were used`,
    );
  }
  if (g.verify) {
    const verdict = g.verify.passed ? "passed" : `failed (exit ${g.verify.exit})`;
    lines.push(`  verify: ${g.verify.command} ${verdict}`);
  }
  lines.push(...failureLines(g));
  if (g.error) lines.push(`  error (${g.error.stage}): ${g.error.message}`);
  for (const warning of g.warnings ?? []) lines.push(`  warning: ${warning}`);
  if (g.push) lines.push(`  pushed ${g.push.sha.slice(0, 7)} to ${g.branch}`);
  if (g.pullRequest)
    lines.push(
      `  pull request: ${g.pullRequest.url}${g.pullRequest.created ? " (new)" : " (updated)"}`,
    );
  return lines.join("\n");
}

const OUTPUT_LINES = 15;

/**
 * Why updates did not ship: the command that failed and the end of its
 * output, so a failed group can be understood without a pull request.
 */
function failureLines(g: DepsGroupResult): string[] {
  // An error's failure is the branch's own (it fails without the updates): shown the same way.
  if (g.status !== "failed" && g.status !== "partial" && !(g.status === "error" && g.firstFailure))
    return [];
  const failure: BumpFailure | undefined =
    g.status === "error"
      ? g.firstFailure
      : (g.leftOut.findLast((l) => l.failure)?.failure ?? g.firstFailure);
  if (!failure) return [];
  const { result } = failure;
  const context = g.status === "partial" ? "with the left-out updates, " : "";
  const lines = sameRun(result, g.verify)
    ? []
    : [`  ${context}${failure.stage} failed: ${result.command} (exit ${result.exit})`];
  if (result.networkTrouble) lines.push(`  ${result.networkTrouble}`);
  const output = result.outputTail.trimEnd().split("\n").slice(-OUTPUT_LINES);
  if (output.join("").trim()) lines.push(...output.map((line) => `      ${line}`));
  return lines;
}

/** The verify line already names this run; only its output is added. */
function sameRun(a: CommandResult, b: CommandResult | undefined): boolean {
  return (
    b !== undefined && a.command === b.command && a.exit === b.exit && a.outputTail === b.outputTail
  );
}
