import { packageManager } from "../managers/index.js";
import type { Update, UpdateLocation } from "../update.js";
import type { SkippedDependency } from "./dependency-list.js";
import { groupTitle, MAJOR_ORDER } from "./groups.js";
import { SCRIPT_SETTINGS } from "./install-scripts.js";
import { nodeStatement } from "./node/project-node.js";
import { fromVersions } from "./outdated.js";
import type { DepsPlan, PlanWarning } from "./plan.js";
import { ONE_AT_A_TIME } from "./regular-updates.js";
import { formatAge } from "./versions.js";

/** The plan as `patchwright deps --dry-run` prints it: groups, packages, from -> to, and why others were left. */
export function renderDepsPlan(
  plan: DepsPlan,
  options: { now: number; branchPrefix: string },
): string {
  const lines: string[] = [];
  const count = plan.groups.reduce((sum, g) => sum + g.updates.length, 0);
  const exempt = [...new Set(plan.releaseAge?.gates.flatMap((g) => g.exempt?.source ?? []))];
  const age = plan.releaseAge
    ? `; minimum release age from ${plan.releaseAge.source}${exempt.length > 0 ? `, some packages exempt (${exempt.join(", ")})` : ""}`
    : "";
  const pinned = plan.packageManager ? ` (package.json packageManager ${plan.packageManager})` : "";
  const left = otherLockfilesNote(plan.otherLockfiles ?? []);
  lines.push(
    `Registry ${plan.registry}; ${plan.manifests.length} package.json file${plan.manifests.length === 1 ? "" : "s"}; ${plan.manager}${pinned}${left}.`,
    `${nodeStatement(plan.node)}${age}.`,
    ...plan.warnings.map(warningLine),
    count === 0
      ? "No updates to propose."
      : `${count} update${count === 1 ? "" : "s"} in ${plan.groups.length} pull request${plan.groups.length === 1 ? "" : "s"}:`,
  );
  if (plan.groups.length > 1)
    lines.push(
      `They open in this order: security fixes, then groups, then majors, ${MAJOR_ORDER}; past deps.max_open_prs (${plan.maxOpenPrs}) the rest wait.`,
    );
  for (const [index, group] of plan.groups.entries()) {
    // Counting from none open: on GitHub, pull requests already open take places too.
    const waits =
      index >= plan.maxOpenPrs ? `; waits: deps.max_open_prs is ${plan.maxOpenPrs}` : "";
    lines.push(
      "",
      `${groupTitle(group)}  (branch ${options.branchPrefix}deps/${group.slug}${waits})`,
    );
    const width = Math.max(...group.updates.map((u) => displayName(u).length));
    const pad = " ".repeat(width);
    for (const update of group.updates) {
      const age = update.publishedAt
        ? `, released ${formatAge(options.now - Date.parse(update.publishedAt))} ago`
        : "";
      const where = listManifests(update.locations.map(locationName));
      const warn =
        update.newInstallScripts.length > 0
          ? `  ! new ${update.newInstallScripts.join("/")} script`
          : "";
      const unapproved = update.unapprovedScripts
        ? `  ! ${update.unapprovedScripts.scripts.join("/")} not approved in ${SCRIPT_SETTINGS[update.unapprovedScripts.tool].field}${update.unapprovedScripts.otherVersions.length > 0 ? ` (it approves ${update.unapprovedScripts.otherVersions.join(", ")})` : ""}`
        : "";
      lines.push(
        `  ${displayName(update).padEnd(width)}  ${fromVersions(update)} -> ${update.to}  (${update.type}${age}; ${where})${warn}${unapproved}`,
      );
      const perWorkspace = fromPerManifest(update.locations);
      if (perWorkspace) lines.push(`  ${pad}  from ${perWorkspace}`);
      for (const advisory of update.advisories ?? [])
        lines.push(
          `  ${pad}  fixes advisory ${advisory.id} (${advisory.severity}): ${advisory.title}`,
        );
      for (const note of update.passedOver) lines.push(`  ${pad}  passed over ${note}`);
    }
  }
  // Updates that wait for an earlier one of the same package: the rule said once, above them.
  const waits = `: ${ONE_AT_A_TIME}`;
  const waiting = plan.skipped.filter((s) => s.reason.endsWith(waits));
  const leftOut = plan.skipped.filter((s) => !s.reason.endsWith(waits));
  if (leftOut.length > 0) lines.push("", "Left out:", ...leftOutLines(leftOut));
  if (waiting.length > 0)
    lines.push(
      "",
      `Waiting, ${ONE_AT_A_TIME}:`,
      ...leftOutLines(waiting.map((s) => ({ ...s, reason: s.reason.slice(0, -waits.length) }))),
    );
  const dependencies = (n: number) => `${n} dependenc${n === 1 ? "y is" : "ies are"}`;
  const footer = [
    plan.upToDate > 0 ? `${dependencies(plan.upToDate)} up to date.` : "",
    plan.internal > 0
      ? `${dependencies(plan.internal)} on this workspace's own packages (linked by ${packageManager(plan.manager).label}, not bumped).`
      : "",
  ].filter(Boolean);
  if (footer.length > 0) lines.push("", ...footer);
  return lines.join("\n");
}

/** A check that could not run, said before anything else: its silence is no "nothing found". */
export function warningText(warning: PlanWarning): string {
  return `the security advisory check could not run (${warning.error}), so security fixes may be missing from this plan`;
}

/** Another tool's lockfile beside the manager's own: the job never writes it, so it falls behind. */
function otherLockfilesNote(others: readonly string[]): string {
  if (others.length === 0) return "";
  const [one] = others;
  return others.length === 1
    ? `; ${one} is here too, another tool's lockfile: left as it is, its versions fall behind`
    : `; ${others.join(", ")} are here too, other tools' lockfiles: left as they are, their versions fall behind`;
}

function warningLine(warning: PlanWarning): string {
  return `Warning: ${warningText(warning)}.`;
}

/** `zod3 (npm:zod)` for an alias, the name otherwise. */
export function displayName(update: Pick<Update, "name" | "package">): string {
  return update.package ? `${update.name} (npm:${update.package})` : update.name;
}

function locationName(location: UpdateLocation): string {
  if (location.section === "packageManager")
    return `${location.manifest} packageManager${location.release ? ` and ${location.release.file}` : ""}`;
  return location.catalog !== undefined ? catalogName(location) : location.manifest;
}

/** "pnpm-workspace.yaml catalog", or "… catalogs.react17" for a named one. */
export function catalogName(location: UpdateLocation): string {
  const which = location.catalog === "default" ? "catalog" : `catalogs.${location.catalog}`;
  return `${location.manifest} ${which}`;
}

/** "5.5.4 in package.json; 5.8.2 in packages/a/package.json, …" when the workspaces differ. */
function fromPerManifest(locations: readonly UpdateLocation[]): string | undefined {
  const byVersion = byFromVersion(locations, locationName);
  if (byVersion.size < 2) return undefined;
  return [...byVersion]
    .map(([version, where]) => `${version} in ${listManifests(where)}`)
    .join("; ");
}

/** One line per reason: a reason shared by several dependencies is said once, with their names. */
function leftOutLines(skipped: readonly SkippedDependency[]): string[] {
  const byReason = new Map<string, SkippedDependency[]>();
  for (const skip of skipped)
    byReason.set(skip.reason, [...(byReason.get(skip.reason) ?? []), skip]);
  return [...byReason].map(([reason, entries]) => {
    if (entries.length === 1) {
      const [only] = entries as [SkippedDependency];
      return `  ${only.name} (${skipPlace(only)}): ${reason}`;
    }
    const byName = new Map<string, string[]>();
    for (const e of entries) byName.set(e.name, [...(byName.get(e.name) ?? []), skipPlace(e)]);
    const names = [...byName].map(([name, manifests]) => `${name} (${listManifests(manifests)})`);
    return `  ${reason}: ${names.join(", ")}`;
  });
}

/** A left-out entry's manifest, with its section when the manifest names the package in another too. */
function skipPlace(skip: SkippedDependency): string {
  return skip.section ? `${skip.manifest} ${skip.section}` : skip.manifest;
}

/** Where each version an update moves from is, named by `name`, in the order first met. */
export function byFromVersion(
  locations: readonly UpdateLocation[],
  name: (location: UpdateLocation) => string,
): Map<string, string[]> {
  const byVersion = new Map<string, string[]>();
  for (const location of locations)
    byVersion.set(location.from, [...(byVersion.get(location.from) ?? []), name(location)]);
  return byVersion;
}

/**
 * At most three paths, then a count: a monorepo's list would drown the
 * versions (TanStack router names one vite in 175 package.json files).
 */
export function listManifests(paths: readonly string[], show = (path: string) => path): string {
  const unique = [...new Set(paths)].map(show);
  return unique.length <= 3
    ? unique.join(", ")
    : `${unique.slice(0, 2).join(", ")} and ${unique.length - 2} more`;
}
