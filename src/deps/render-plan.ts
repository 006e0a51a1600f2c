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
  const age = plan.releaseAge ? `; minimum release age from ${plan.releaseAge.source}` : "";
  lines.push(
    `Registry ${plan.registry}; ${plan.manifests.length} package.json file${plan.manifests.length === 1 ? "" : "s"}; ${plan.manager}.`,
    `Engines checked against Node ${plan.node.version} (${plan.node.source})${age}.`,
    count === 0
      ? "No updates to propose."
      : `${count} update${count === 1 ? "" : "s"} in ${plan.groups.length} pull request${plan.groups.length === 1 ? "" : "s"}:`,
  );
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
      const where = listManifests(update.locations.map((l) => l.manifest));
      const warn =
        update.newInstallScripts.length > 0
          ? `  ! new ${update.newInstallScripts.join("/")} script`
          : "";
      lines.push(
        `  ${update.name.padEnd(width)}  ${update.from} -> ${update.to}  (${update.type}${age}; ${where})${warn}`,
      );
      for (const advisory of update.advisories ?? [])
        lines.push(
          `  ${" ".repeat(width)}  fixes advisory ${advisory.id} (${advisory.severity}): ${advisory.title}`,
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
  const dependencies = (n: number) => `${n} dependenc${n === 1 ? "y is" : "ies are"}`;
  const footer = [
    plan.upToDate > 0 ? `${dependencies(plan.upToDate)} up to date.` : "",
    plan.internal > 0
      ? `${dependencies(plan.internal)} on this workspace's own packages (linked by npm, not bumped).`
      : "",
  ].filter(Boolean);
  if (footer.length > 0) lines.push("", ...footer);
  return lines.join("\n");
}

/** At most three paths, then a count: a monorepo's list would drown the versions. */
function listManifests(paths: string[]): string {
  const unique = [...new Set(paths)];
  return unique.length <= 3
    ? unique.join(", ")
    : `${unique.slice(0, 2).join(", ")} and ${unique.length - 2} more`;
}
