import { groupTitle } from "./groups.js";
import type { DepsPlan } from "./plan.js";
import { formatAge } from "./versions.js";

/** The plan as `patchwright deps --dry-run` prints it: groups, packages, from -> to, and why others were left. */
export function renderDepsPlan(
  plan: DepsPlan,
  options: { now: number; branchPrefix: string },
): string {
  const lines: string[] = [];
  const count = plan.groups.reduce((sum, g) => sum + g.updates.length, 0);
  lines.push(
    `Registry ${plan.registry}; ${plan.manifests.length} package.json file${plan.manifests.length === 1 ? "" : "s"}.`,
    count === 0
      ? "No updates to propose."
      : `${count} update${count === 1 ? "" : "s"} in ${plan.groups.length} pull request${plan.groups.length === 1 ? "" : "s"}:`,
  );
  if (plan.warning) lines.unshift(`Warning: ${plan.warning}.`);
  for (const [index, group] of plan.groups.entries()) {
    // Counting from none open: on GitHub, pull requests already open take places too.
    const waits =
      index >= plan.maxOpenPrs ? `; waits: deps.max_open_prs is ${plan.maxOpenPrs}` : "";
    lines.push(
      "",
      `${groupTitle(group)}  (branch ${options.branchPrefix}deps/${group.slug}${waits})`,
    );
    const width = Math.max(...group.updates.map((u) => u.name.length));
    for (const update of group.updates) {
      const age = update.publishedAt
        ? `, released ${formatAge(options.now - Date.parse(update.publishedAt))} ago`
        : "";
      const where = [...new Set(update.locations.map((l) => l.manifest))].join(", ");
      const warn =
        update.newInstallScripts.length > 0
          ? `  ! new ${update.newInstallScripts.join("/")} script`
          : "";
      lines.push(
        `  ${update.name.padEnd(width)}  ${update.from} -> ${update.to}  (${update.type}${age}; ${where})${warn}`,
      );
      for (const note of update.passedOver)
        lines.push(`  ${" ".repeat(width)}  passed over ${note}`);
    }
  }
  if (plan.skipped.length > 0) {
    lines.push("", "Left out:");
    for (const skip of plan.skipped)
      lines.push(`  ${skip.name} (${skip.manifest}): ${skip.reason}`);
  }
  if (plan.upToDate > 0)
    lines.push(
      "",
      `${plan.upToDate} dependenc${plan.upToDate === 1 ? "y is" : "ies are"} up to date.`,
    );
  return lines.join("\n");
}
