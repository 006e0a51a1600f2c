import { groupTitle } from "./groups.js";
import type { DepsJobResult } from "./run-deps-job.js";

/**
 * A dependency run in plain text, one block per group: the CLI prints it,
 * and the App and the Action can log it or put it in a step summary.
 */
export function renderDepsJobSummary(result: DepsJobResult): string {
  if (result.message) return `patchwright deps: ${result.message}`;
  const blocks = result.groups.map((g) => {
    const shipped = g.applied.length > 0 ? { ...g.group, updates: g.applied } : g.group;
    const lines = [`${g.status.toUpperCase().padEnd(7)} ${groupTitle(shipped)} -> ${g.branch}`];
    for (const u of g.applied) lines.push(`  ${u.name} ${u.from} -> ${u.to}`);
    for (const l of g.leftOut) {
      lines.push(`  left out: ${l.update.name} ${l.update.from} -> ${l.update.to}`);
    }
    if (g.agent) {
      const files = g.agent.files.join(", ") || "no files";
      lines.push(`  agent: ${g.agent.fixed ? "fixed it" : "did not fix it"} (${files})`);
    }
    if (g.drift?.length) {
      lines.push(
        `  warning: the agent's recorded changes missed the workspace's for ${g.drift.join(", ")}; the workspace's were used`,
      );
    }
    if (g.verify)
      lines.push(
        `  verify: \`${g.verify.command}\` ${g.verify.passed ? "passed" : `failed (exit ${g.verify.exit})`}`,
      );
    if (g.error) lines.push(`  error (${g.error.stage}): ${g.error.message}`);
    if (g.push) lines.push(`  pushed ${g.push.sha.slice(0, 7)} to ${g.branch}`);
    if (g.pullRequest)
      lines.push(
        `  pull request: ${g.pullRequest.url}${g.pullRequest.created ? " (new)" : " (updated)"}`,
      );
    return lines.join("\n");
  });
  for (const g of result.deferred)
    blocks.push(`WAITING ${groupTitle(g)}: deps.max_open_prs bump pull requests are open`);
  for (const d of result.declined) {
    blocks.push(`SKIPPED ${groupTitle(d.group)}: ${d.url} proposing these versions was closed`);
  }
  return blocks.length > 0 ? blocks.join("\n\n") : "No updates to propose.";
}
